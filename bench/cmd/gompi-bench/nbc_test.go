package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestIallreduce: the overlap measurement prints OSU's osu_iallreduce
// columns, a row per size, and an overlap between 0 and 100 %.
func TestIallreduce(t *testing.T) {
	out, errs, err := job(t, gompirun, "--timeout", "60", "-np", "2", "--oversubscribe", bench, "iallreduce", "-s", "4,1K", "-i", "3", "-x", "1")
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	var keys []int
	heading := false
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if strings.HasPrefix(line, "# Size ") {
			heading = strings.Join(f, " ") == "# Size Pure Comm.(us) Overall(us) Compute(us) Overlap(%)"
			continue
		}
		if strings.HasPrefix(line, "#") || len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			t.Fatalf("row %q: want 5 columns\n%s", line, out)
		}
		k, err1 := strconv.Atoi(f[0])
		overlap, err2 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil || overlap < 0 || overlap > 100 {
			t.Errorf("row %q: size %v, overlap %v", line, err1, f[4])
		}
		keys = append(keys, k)
	}
	if !heading || !slices.Equal(keys, []int{4, 1024}) {
		t.Errorf("heading found %v, sizes %v\n%s", heading, keys, out)
	}
}
