package params

import (
	"math"
	"strings"
	"testing"
)

func TestRangeRefusesAndStates(t *testing.T) {
	for _, tc := range []struct {
		r       *Range
		text    string
		ok, bad []any
	}{
		{IntIn(1, 4), "1 to 4", []any{1, 4}, []any{0, 5, -1}},
		{IntFrom(0), "0 or more", []any{0, math.MaxInt}, []any{-1}},
		{SizeIn(8, 16), "8 to 16 bytes", []any{int64(8), int64(16)}, []any{int64(7), int64(17)}},
		{SizeIn(64, 16<<20), "64 to 16m bytes", []any{int64(64)}, []any{int64(16<<20 + 1)}},
		{SizeIn(1, math.MaxInt64), "1 or more bytes", []any{int64(math.MaxInt64)}, []any{int64(0)}},
		{SizeIn(16<<10, 64<<20).PowersOfTwo(), "a power of two from 16k to 64m bytes",
			[]any{int64(16 << 10), int64(1 << 20)}, []any{int64(0), int64(3 << 20), int64(128 << 20)}},
		{FloatIn(0.001, 60), "0.001 to 60", []any{0.001, 60.0}, []any{0.0, 60.5}},
		{IntFrom(0).Unit("calls"), "0 or more calls", []any{0}, []any{-1}},
		{FloatAbove(0, 3600).Unit("seconds"), "more than 0 and at most 3600 seconds", []any{1.0}, []any{0.0}},
		{FloatAbove(0, 3600), "more than 0 and at most 3600", []any{1e-9, 3600.0}, []any{0.0, -1.0, 3601.0}},
	} {
		if got := tc.r.String(); got != tc.text {
			t.Errorf("text %q, want %q", got, tc.text)
		}
		for _, v := range tc.ok {
			if err := tc.r.check(v); err != nil {
				t.Errorf("%s: %v refused: %v", tc.text, v, err)
			}
		}
		for _, v := range tc.bad {
			if err := tc.r.check(v); err == nil || err.Error() != "must be "+tc.text {
				t.Errorf("%s: %v gave %v, want must be %s", tc.text, v, err, tc.text)
			}
		}
	}
}

func TestRangeRegistration(t *testing.T) {
	reg := NewRegistry()
	r := reg.Scope("btl", "x")
	r.Int(Spec{Name: "n", Default: "2", Help: "n", Level: 1, Range: IntIn(1, 4)})
	r.Int(Spec{Name: "m", Default: "2", Help: "m", Level: 1, Range: IntIn(1, 4), Accepts: "1 (one) to 4"})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	d, _ := reg.Lookup("btl_x_n")
	if d.Allowed() != "1 to 4" {
		t.Errorf("allowed %q, want the range's text", d.Allowed())
	}
	if err := d.Check("5"); err == nil || err.Error() != "must be 1 to 4" {
		t.Errorf("Check(5): %v", err)
	}
	if err := d.Check("x"); err == nil || !strings.Contains(err.Error(), "is not an integer, 1 to 4") {
		t.Errorf("Check(x): %v", err)
	}
	if d, _ := reg.Lookup("btl_x_m"); d.Allowed() != "1 (one) to 4" {
		t.Errorf("allowed %q: Accepts given should win", d.Allowed())
	}
	r.Size(Spec{Name: "s", Default: "2", Help: "s", Level: 1, Range: IntIn(1, 4)})
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "range on a size parameter") {
		t.Errorf("an int range on a size parameter: %v", err)
	}
	r.Int(Spec{Name: "d", Default: "9", Help: "d", Level: 1, Range: IntIn(1, 4)})
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "must be 1 to 4") {
		t.Errorf("a default outside the range: %v", err)
	}
}
