package table

import (
	"math"
	"strings"
	"testing"
)

const good = `# gompi-bench multi-lat (gompi 0.1.0)
# btl: self,tcp
# unit: us: average one-way latency
# transports: 0-2:tcp 1-3:tcp
# Size           Latency (us)
0                       18.80

1024                    0.0123
`

func TestParse(t *testing.T) {
	tb, err := Parse(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	if tb.Title != "gompi-bench multi-lat (gompi 0.1.0)" || tb.Fields["btl"] != "self,tcp" || tb.Key != "Size" || tb.Column != "Latency (us)" {
		t.Errorf("parsed %+v", tb)
	}
	if len(tb.Rows) != 2 || tb.Rows[1].Key != 1024 || tb.Rows[1].Value != 0.0123 || tb.Rows[1].More != nil {
		t.Errorf("rows %+v", tb.Rows)
	}
	tr := tb.Transports()
	if len(tr) != 2 || tr["0-2"] != "tcp" || tr["1-3"] != "tcp" {
		t.Errorf("transports %v", tr)
	}
	c, _ := Parse(strings.NewReader(strings.Replace(good, "0-2:tcp 1-3:tcp", "not reported by this MPI library", 1)))
	if len(c.Transports()) != 0 {
		t.Errorf("a note parsed as transports: %v", c.Transports())
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":              "",
		"banner first":       "Open MPI warning\n" + good,
		"header after data":  good + "# late\n",
		"a short row":        strings.Replace(good, "0.0123", "0.0123 9", 1), // the first row has two columns
		"more not a number":  strings.Replace(good, "18.80", "18.80 x", 1),
		"key alone":          strings.Replace(good, "18.80", "", 1),
		"key not an integer": strings.Replace(good, "1024 ", "1k ", 1),
		"value not a number": strings.Replace(good, "18.80", "fast", 1),
		"no column headings": "# title\n1 2\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestCheck(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"no transports line": {strings.Replace(good, "# transports: 0-2:tcp 1-3:tcp\n", "", 1), `no "transports" header line`},
		"no rows":            {strings.SplitAfter(good, "Latency (us)\n")[0], "no rows"},
		"size repeats":       {strings.Replace(good, "1024 ", "0 ", 1), "does not increase"},
		"zero value":         {strings.Replace(good, "18.80", "0.00", 1), "not positive"},
		"infinite value":     {strings.Replace(good, "18.80", "+Inf", 1), "not positive and finite"},
		"NaN":                {strings.Replace(good, "18.80", "NaN", 1), "not positive and finite"},
		"negative overlap":   {wide(good, "1", "-1"), "column 3, -1, is not finite and at least 0"},
		"infinite overlap":   {wide(good, "1", "+Inf"), "column 3, +Inf, is not finite"},
	} {
		tb, err := Parse(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := tb.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check() = %v, want %q", name, err, c.want)
		}
	}
}

// wide adds a column to both rows of a two-column table.
func wide(tb, first, second string) string {
	tb = strings.Replace(tb, "18.80", "18.80 "+first, 1)
	return strings.Replace(tb, "0.0123", "0.0123 "+second, 1)
}

// TestParseMore: the columns after the value, the overlap measurements',
// are read into every row, and an overlap of 0 is well formed.
func TestParseMore(t *testing.T) {
	tb, err := Parse(strings.NewReader(wide(wide(good, "7", "8"), "3.5", "0")))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	if got := tb.Rows[1].More; len(got) != 2 || got[0] != 0 || got[1] != 8 || tb.Rows[0].More[0] != 3.5 {
		t.Errorf("rows %+v", tb.Rows)
	}
}

func TestMedian(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("odd: %v", m)
	}
	xs := []float64{4, 1, 3, 2}
	if m := Median(xs); m != 2.5 || xs[0] != 4 {
		t.Errorf("even: %v, input now %v", m, xs)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("empty: not NaN")
	}
}
