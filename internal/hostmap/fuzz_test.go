package hostmap

import (
	"io"
	"strings"
	"testing"
)

// FuzzParsers feeds one input to every parser: none may panic, and what
// they accept must be usable by Place. Plain "go test" runs the seeds only.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"a,b:4,a", "[fe80::1]:2", "fe80::1", "a:", ":", ",", "[", "]",
		"a slots=2 max_slots=4\n# c\nu@b\n", "a slots = 2", "a max_slots=1\na", "@\n=",
		"h[1-3],gpu[01-02,7],login", "r[1-2]n[1-2]", "h[", "h[1-", "h[]", "h[3-1]",
		"2(x3),1", "2(x", "(x2)", "ppr:2:node", "slot:oversubscribe", "node", "core",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if hosts, err := ParseHosts(s); err == nil {
			usable(t, hosts)
		}
		if hosts, err := ParseHostfile("f", strings.NewReader(s)); err == nil && len(hosts) > 0 {
			usable(t, hosts)
		}
		if names, err := ExpandNodeList(s); err == nil {
			if len(names) == 0 || len(names) > maxNodes {
				t.Fatalf("ExpandNodeList(%q) gave %d names", s, len(names))
			}
		}
		if counts, err := ParseTasksPerNode(s); err == nil {
			for _, c := range counts {
				if c < 1 {
					t.Fatalf("ParseTasksPerNode(%q) gave %d", s, c)
				}
			}
		}
		if m, err := ParseMapBy(s); err == nil {
			if again, err := ParseMapBy(m.String()); err != nil || again.String() != m.String() {
				t.Fatalf("ParseMapBy(%q).String() = %q does not parse back: %v", s, m, err)
			}
		}
		_, _ = ParseRankBy(s)
	})
}

// usable fails unless parsed hosts can be mapped and displayed.
func usable(t *testing.T, hosts []Host) {
	t.Helper()
	for _, o := range []Options{
		{NP: []int{5}, Oversubscribe: true},
		{NP: []int{3}, MapBy: MapBy{Mapping: MapNode}, Oversubscribe: true},
		{NP: []int{2, 3}, RankBy: RankNode, Oversubscribe: true},
	} {
		m, err := Place(hosts, o)
		if err != nil {
			if strings.Contains(err.Error(), "max_slots") {
				continue // a limit may refuse the ranks
			}
			t.Fatalf("Place(%+v): %v", hosts, err)
		}
		want := 0
		for _, n := range o.NP {
			want += n
		}
		if len(m.Procs) != want {
			t.Fatalf("Place(%+v, %+v) placed %d ranks, want %d", hosts, o, len(m.Procs), want)
		}
		if err := WriteMap(io.Discard, m, nil); err != nil {
			t.Fatal(err)
		}
	}
}
