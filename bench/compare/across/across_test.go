package across

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// results: gompi, Open MPI and MPICH over three rounds of a latency and a
// bandwidth; MPICH's bandwidth failed in round 2.
func results() *Results {
	r := &Results{Rounds: 3, Hosts: 8,
		Libraries: []Library{{Name: Gompi}, {Name: "Open MPI"}, {Name: "MPICH"}},
		Measures:  []Measure{{Name: "latency 8 B", Unit: "us"}, {Name: "bandwidth 1 MiB", Unit: "MB/s", Higher: true}}}
	add := func(measure, lib string, figs ...float64) {
		for i, v := range figs {
			r.Runs = append(r.Runs, Run{Measure: measure, Library: lib, Round: i + 1, Value: v})
		}
	}
	add("latency 8 B", Gompi, 12, 14, 11)
	add("latency 8 B", "Open MPI", 13, 13, 13)
	add("latency 8 B", "MPICH", 10, 12, 16) // better by median, not in round 3
	add("bandwidth 1 MiB", Gompi, 1000, 1500, 1200)
	add("bandwidth 1 MiB", "Open MPI", 1100, 1100, 1100)
	add("bandwidth 1 MiB", "MPICH", 2000)
	r.Runs = append(r.Runs, Run{Measure: "bandwidth 1 MiB", Library: "MPICH", Round: 2, Error: "did not finish within 1m0s"})
	return r
}

func TestCompare(t *testing.T) {
	cs := results().Compare()
	if len(cs) != 2 {
		t.Fatalf("%d comparisons, want 2", len(cs))
	}
	lat, bw := cs[0], cs[1]
	// The better other is the one with the better median; round by round,
	// the better other of that round.
	if lat.Better != "MPICH" || lat.Median[Gompi] != 12 || lat.Median["MPICH"] != 12 || lat.Ratio != 1 || !lat.Met() {
		t.Errorf("latency: %+v", lat)
	}
	if want := []float64{12.0 / 10, 14.0 / 12, 11.0 / 13}; !slices.Equal(lat.Turns, want) || lat.Short() != 2 {
		t.Errorf("latency by turn %v (%d short), want %v", lat.Turns, lat.Short(), want)
	}
	// Higher is better: MPICH's one run beats Open MPI's, and gompi falls
	// short of it; its failure is kept with its round.
	if bw.Better != "MPICH" || bw.Ratio != 1200.0/2000 || bw.Met() || bw.Failed["MPICH"] != "round 2: did not finish within 1m0s" {
		t.Errorf("bandwidth: %+v", bw)
	}
	if want := []float64{1000.0 / 2000, 1500.0 / 1100, 1200.0 / 1100}; !slices.Equal(bw.Turns, want) || bw.Short() != 1 {
		t.Errorf("bandwidth by turn %v (%d short), want %v", bw.Turns, bw.Short(), want)
	}
}

// TestCompareWithout: no other library, or no gompi, gives no ratio and
// no verdict but a missed goal.
func TestCompareWithout(t *testing.T) {
	r := results()
	r.Runs = slices.DeleteFunc(r.Runs, func(run Run) bool { return run.Library != Gompi && run.Measure == "latency 8 B" })
	r.Runs = slices.DeleteFunc(r.Runs, func(run Run) bool { return run.Library == Gompi && run.Measure == "bandwidth 1 MiB" })
	for _, c := range r.Compare() {
		if !math.IsNaN(c.Ratio) || c.Met() || len(c.Turns) != 0 {
			t.Errorf("%s: %+v", c.Measure.Name, c)
		}
	}
}

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "across.json")
	r := results()
	if err := r.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil || !slices.Equal(back.Runs, r.Runs) || !slices.Equal(back.Measures, r.Measures) || back.Rounds != 3 {
		t.Fatalf("read back %+v, %v", back, err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("a missing file was read")
	}
}

func TestCheck(t *testing.T) {
	r := results()
	r.Rounds = 2
	r.Runs = append(r.Runs, Run{Measure: "bcast", Library: Gompi, Round: 1}, Run{Measure: "latency 8 B", Library: "Intel MPI", Round: 1})
	err := r.Check()
	for _, want := range []string{"round 3: the rounds are 1 to 2", `a run of "bcast", which is not among the measures`,
		`by "Intel MPI", which is not among the libraries [gompi Open MPI MPICH]`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if err := (&Results{Rounds: 0, Libraries: []Library{{Name: "MPICH"}}}).Check(); err == nil ||
		!strings.Contains(err.Error(), "0 rounds: want 1 or more") || !strings.Contains(err.Error(), `no library "gompi"`) {
		t.Errorf("empty results: %v", err)
	}
	if err := (&Results{Skipped: "no hosts"}).Check(); err != nil {
		t.Errorf("skipped results: %v", err)
	}
}
