package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNonBlocking: each overlap measurement prints OSU's columns, a row
// per size, a computation no longer than the overall time and an overlap
// between 0 and 100 %.
func TestNonBlocking(t *testing.T) {
	for _, c := range []struct {
		name, sizes string
		want        []int
	}{
		{"iallreduce", "4,1K", []int{4, 1024}},
		{"ibcast", "1,1K", []int{1, 1024}},
		{"ialltoall", "1,1K", []int{1, 1024}},
		{"allreduce-init", "4,1K", []int{4, 1024}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errs, err := job(t, gompirun, "--timeout", "60", "-np", "2", "--oversubscribe", bench, c.name, "-s", c.sizes, "-i", "3", "-x", "1")
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
				k, err := strconv.Atoi(f[0])
				if err != nil {
					t.Fatalf("row %q: size: %v", line, err)
				}
				var v [4]float64
				for i := range v {
					if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
						t.Fatalf("row %q: column %d: %v", line, i+2, err)
					}
				}
				if overall, compute, overlap := v[1], v[2], v[3]; compute > overall || overlap < 0 || overlap > 100 {
					t.Errorf("row %q: compute %v above overall %v, or overlap %v outside 0-100", line, compute, overall, overlap)
				}
				keys = append(keys, k)
			}
			if !heading || !slices.Equal(keys, c.want) {
				t.Errorf("heading found %v, sizes %v, want %v\n%s", heading, keys, c.want, out)
			}
		})
	}
}
