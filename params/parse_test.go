package params

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	enum := []EnumValue{{"ring", "a ring"}, {"Tree", ""}}
	tests := []struct {
		kind   Kind
		in     string
		want   any    // when ok
		detail string // when not ok: expected text after Allowed, if any
		ok     bool
	}{
		{KindBool, "true", true, "", true},
		{KindBool, " YES ", true, "", true},
		{KindBool, "1", true, "", true},
		{KindBool, "No", false, "", true},
		{KindBool, "0", false, "", true},
		{KindBool, "FALSE", false, "", true},
		{KindBool, "on", nil, "", false},
		{KindBool, "", nil, "", false},
		{KindBool, "2", nil, "", false},

		{KindInt, "42", 42, "", true},
		{KindInt, "-7", -7, "", true},
		{KindInt, "+7", 7, "", true},
		{KindInt, "0x1F", 31, "", true},
		{KindInt, "-0x10", -16, "", true},
		{KindInt, "010", 10, "", true}, // decimal, not octal
		{KindInt, "9223372036854775807", math.MaxInt64, "", true},
		{KindInt, "12x", nil, "", false},
		{KindInt, "", nil, "", false},
		{KindInt, "1.5", nil, "", false},
		{KindInt, "0x", nil, "", false},
		{KindInt, "0x-5", nil, "", false},
		{KindInt, "1_000", nil, "", false},
		{KindInt, "0b101", nil, "", false},
		{KindInt, "9223372036854775808", nil, "out of range", false},

		{KindSize, "0", int64(0), "", true},
		{KindSize, "4096", int64(4096), "", true},
		{KindSize, "64k", int64(64 << 10), "", true},
		{KindSize, "2M", int64(2 << 20), "", true},
		{KindSize, " 3g ", int64(3 << 30), "", true},
		{KindSize, "8589934591G", int64(8589934591) << 30, "", true},
		{KindSize, "12x", nil, "", false},
		{KindSize, "-1", nil, "", false},
		{KindSize, "k", nil, "", false},
		{KindSize, "1kk", nil, "", false},
		{KindSize, "1.5k", nil, "", false},
		{KindSize, "8589934592G", nil, "overflows", false},
		{KindSize, "99999999999999999999", nil, "overflows", false},

		{KindFloat, "1.5", 1.5, "", true},
		{KindFloat, "-2e3", -2000.0, "", true},
		{KindFloat, "NaN", nil, "finite", false},
		{KindFloat, "inf", nil, "finite", false},
		{KindFloat, "1e400", nil, "out of range", false},
		{KindFloat, "1.5x", nil, "", false},

		{KindString, "  as is  ", "  as is  ", "", true},
		{KindString, "", "", "", true},

		{KindList, "", []string(nil), "", true},
		{KindList, "  ", []string(nil), "", true},
		{KindList, "a", []string{"a"}, "", true},
		{KindList, " a , b,c ", []string{"a", "b", "c"}, "", true},
		{KindList, "a,,b", nil, "item 2 is empty", false},
		{KindList, "a,", nil, "item 2 is empty", false},

		{KindEnum, "ring", "ring", "", true},
		{KindEnum, "RING", "ring", "", true},
		{KindEnum, "tree", "Tree", "", true},
		{KindEnum, "star", nil, "", false},

		{KindVerbosity, "none", VerboseNone, "", true},
		{KindVerbosity, "Error", VerboseError, "", true},
		{KindVerbosity, "warn", VerboseWarn, "", true},
		{KindVerbosity, "INFO", VerboseInfo, "", true},
		{KindVerbosity, "debug", VerboseDebug, "", true},
		{KindVerbosity, "trace", VerboseTrace, "", true},
		{KindVerbosity, "-1", VerboseNone, "", true},
		{KindVerbosity, "55", Verbosity(55), "", true},
		{KindVerbosity, "100", VerboseMax, "", true},
		{KindVerbosity, "101", nil, "out of range", false},
		{KindVerbosity, "-2", nil, "out of range", false},
		{KindVerbosity, "loud", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String()+"/"+tt.in, func(t *testing.T) {
			d := &Def{Name: "x", Kind: tt.kind, Values: enum}
			got, bad := check(d, tt.in)
			if tt.ok {
				if bad != nil {
					t.Fatalf("check(%q) failed: %s", tt.in, bad)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("check(%q) = %#v, want %#v", tt.in, got, tt.want)
				}
				return
			}
			if bad == nil {
				t.Fatalf("check(%q) = %#v, want an error", tt.in, got)
			}
			msg := bad.String()
			if !strings.Contains(msg, "is not "+d.Allowed()) || !strings.Contains(msg, tt.detail) {
				t.Fatalf("check(%q): %q, want Allowed %q and %q", tt.in, msg, d.Allowed(), tt.detail)
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		d    Def
		want string
	}{
		{Def{Kind: KindBool}, "true, false, 1, 0, yes or no"},
		{Def{Kind: KindInt}, "an integer"},
		{Def{Kind: KindSize}, "a size in bytes with optional k, m or g suffix"},
		{Def{Kind: KindList}, "a comma-separated list"},
		{Def{Kind: KindEnum, Values: []EnumValue{{"a", "help a"}, {"b", ""}}}, "one of: a (help a), b"},
		{Def{Kind: KindVerbosity}, "none, error, warn, info, debug, trace or a number from -1 to 100"},
	}
	for _, tt := range tests {
		if got := tt.d.Allowed(); got != tt.want {
			t.Errorf("%v: Allowed() = %q, want %q", tt.d.Kind, got, tt.want)
		}
	}
}

func TestValidateRunsAfterParse(t *testing.T) {
	errOdd := errors.New("must be even")
	d := &Def{Kind: KindInt, Validate: func(v any) error {
		if v.(int)%2 != 0 {
			return errOdd
		}
		return nil
	}}
	if _, bad := check(d, "4"); bad != nil {
		t.Fatalf("4: %s", bad)
	}
	_, bad := check(d, "5")
	if bad == nil || bad.invalid != errOdd || bad.String() != ": must be even" {
		t.Fatalf("5: got %+v", bad)
	}
}

// The error for a bad value names the parameter, value, source and Allowed.
func TestResolveInvalidValue(t *testing.T) {
	clearEnv(t)
	t.Setenv("GOMPI_MCA_btl_tcp_eager_limit", "12x")
	t.Setenv("GOMPI_MCA_mca_base_strict", "maybe")
	s, err := testRegistry(t).Resolve(Inputs{})
	if s != nil || !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("Resolve = %v, %v; want ErrInvalidValue", s, err)
	}
	for _, want := range []string{
		`parameter btl_tcp_eager_limit: value "12x" from environment GOMPI_MCA_btl_tcp_eager_limit is not a size in bytes with optional k, m or g suffix`,
		`parameter mca_base_strict: value "maybe" from environment GOMPI_MCA_mca_base_strict is not true, false, 1, 0, yes or no`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
}

func TestResolveValidateError(t *testing.T) {
	clearEnv(t)
	errNeg := errors.New("must be positive")
	r := NewRegistry()
	p := r.Scope("btl", "sm").Int(Spec{Name: "fifo", Default: "1", Help: "h", Level: 3,
		Validate: func(v any) error {
			if v.(int) <= 0 {
				return errNeg
			}
			return nil
		}})
	_, err := r.Resolve(Inputs{CommandLine: []Setting{{p.Name(), "-3"}}})
	want := `parameter btl_sm_fifo: value "-3" from command line: must be positive`
	if !errors.Is(err, ErrInvalidValue) || !errors.Is(err, errNeg) || err.Error() != want {
		t.Fatalf("err = %v, want %q wrapping both", err, want)
	}
}
