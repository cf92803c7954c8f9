package osu

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/bench/table"
)

func TestWriteParses(t *testing.T) {
	var b strings.Builder
	h := Header{Title: "gompi-bench latency (gompi 0.1.0)", BTL: "all", Unit: "us: one-way latency",
		Extra: [][2]string{{"launcher", "/bin/gompirun"}}, Transports: "0:self 1:tcp", Key: "Size", Column: "Latency (us)"}
	rows := []Row{{Key: 0, Value: 65.512}, {Key: 1, Value: 0.0123}, {Key: 4194304, Value: 1303.2}}
	if err := Write(&b, h, rows); err != nil {
		t.Fatal(err)
	}
	tb, err := table.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	if tb.Title != h.Title || tb.Fields["launcher"] != "/bin/gompirun" || tb.Key != "Size" || tb.Column != "Latency (us)" {
		t.Errorf("parsed %+v", tb)
	}
	if tb.Rows[0].Value != 65.51 || tb.Rows[1].Value != 0.0123 || tb.Rows[2].Key != 4194304 {
		t.Errorf("rows %+v", tb.Rows)
	}
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{1: "1.00", 1303.219: "1303.22", 0.5: "0.5", 0.012345: "0.0123", 1.2e-5: "1.2e-05"} {
		if got := FormatValue(v); got != want {
			t.Errorf("FormatValue(%v) = %q, want %q", v, got, want)
		}
	}
}
