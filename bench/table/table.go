// Package table reads the tables that gompi-bench and the C programs in
// bench/c print, OSU's layout with gompi's header lines:
//
//	# gompi-bench latency (gompi 0.1.0)
//	# btl: all
//	# unit: us: one-way latency, half the round trip between ranks 0 and 1
//	# transports: 0:self 1:tcp
//	# Size             Latency (us)
//	0                         65.51
package table

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Table is one parsed table.
type Table struct {
	Title  string            // the first header line
	Fields map[string]string // the "# name: value" lines: btl, unit, transports, ...
	Key    string            // first column's heading: "Size" or "Ranks"
	Column string            // the headings after the first, as printed
	Rows   []Row
}

// Row is one data line: the key, the value and the further columns (the
// overlap measurements' overall time, compute time and overlap), as many
// in every row.
type Row struct {
	Key   int
	Value float64
	More  []float64
}

var field = regexp.MustCompile(`^([a-z][a-z0-9 _-]*): (.*)$`)

// Parse reads one table. Lines before the first header line (a launcher's
// banner, say) are an error: a table must be all there is.
func Parse(r io.Reader) (*Table, error) {
	t := &Table{Fields: map[string]string{}}
	var heading string // the latest comment line: the column headings once data starts
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "#"):
			if len(t.Rows) > 0 {
				return nil, fmt.Errorf("line %d: header line %q after the data", n, line)
			}
			text := strings.TrimSpace(line[1:])
			if t.Title == "" {
				t.Title = text
			} else if m := field.FindStringSubmatch(text); m != nil {
				t.Fields[m[1]] = m[2]
			}
			heading = text
		default:
			if t.Title == "" {
				return nil, fmt.Errorf("line %d: %q before any header line", n, line)
			}
			if len(t.Rows) == 0 {
				cols := strings.Fields(heading)
				if len(cols) < 2 {
					return nil, fmt.Errorf("line %d: no column headings above the data", n)
				}
				t.Key, t.Column = cols[0], strings.Join(cols[1:], " ")
			}
			row, err := parseRow(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if len(t.Rows) > 0 && len(row.More) != len(t.Rows[0].More) {
				return nil, fmt.Errorf("line %d: %q: %d columns, the first row has %d", n, line, 2+len(row.More), 2+len(t.Rows[0].More))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if t.Title == "" {
		return nil, errors.New("no table: the output is empty")
	}
	return t, nil
}

func parseRow(line string) (Row, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return Row{}, fmt.Errorf("%q: want a key and a value, and any further columns", line)
	}
	k, err := strconv.Atoi(f[0])
	if err != nil {
		return Row{}, fmt.Errorf("%q: first column is not an integer", line)
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		return Row{}, fmt.Errorf("%q: second column is not a number", line)
	}
	row := Row{Key: k, Value: v}
	for i, s := range f[2:] {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return Row{}, fmt.Errorf("%q: column %d is not a number", line, i+3)
		}
		row.More = append(row.More, x)
	}
	return row, nil
}

// Check reports what makes a table malformed: a missing header line, no
// rows, keys that do not increase, values that are not positive and
// finite, further columns that are negative or not finite (an overlap
// may be 0).
func (t *Table) Check() error {
	var errs []error
	for _, f := range []string{"btl", "unit", "transports"} {
		if t.Fields[f] == "" {
			errs = append(errs, fmt.Errorf("no %q header line", f))
		}
	}
	if len(t.Rows) == 0 {
		errs = append(errs, errors.New("no rows"))
	}
	for i, r := range t.Rows {
		if i > 0 && r.Key <= t.Rows[i-1].Key {
			errs = append(errs, fmt.Errorf("row %d: %s %d does not increase on %d", i+1, t.Key, r.Key, t.Rows[i-1].Key))
		}
		if r.Key < 0 {
			errs = append(errs, fmt.Errorf("row %d: negative %s %d", i+1, t.Key, r.Key))
		}
		if !(r.Value > 0) || math.IsInf(r.Value, 0) {
			errs = append(errs, fmt.Errorf("row %d: value %v is not positive and finite", i+1, r.Value))
		}
		for j, x := range r.More {
			if !(x >= 0) || math.IsInf(x, 0) {
				errs = append(errs, fmt.Errorf("row %d: column %d, %v, is not finite and at least 0", i+1, j+3, x))
			}
		}
	}
	return errors.Join(errs...)
}

// Keys lists the first column.
func (t *Table) Keys() []int {
	keys := make([]int, len(t.Rows))
	for i, r := range t.Rows {
		keys[i] = r.Key
	}
	return keys
}

// Transports parses the transports line into its "peer:name" entries,
// peer being a rank ("1") or a pair ("0-2"). Words of another form (a note
// from a library that does not report its transports) are left out.
func (t *Table) Transports() map[string]string {
	out := map[string]string{}
	for _, w := range strings.Fields(t.Fields["transports"]) {
		if m := entry.FindStringSubmatch(w); m != nil {
			out[m[1]] = m[2]
		}
	}
	return out
}

var entry = regexp.MustCompile(`^(\d+(?:-\d+)?):([a-z][a-z0-9_]*)$`)

// Median returns the median of xs, NaN for none; xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
