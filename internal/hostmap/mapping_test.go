package hostmap

import (
	"fmt"
	"strings"
	"testing"
)

// hostsOf lists each rank's host in rank order: "a b a b".
func hostsOf(m *Map) string {
	names := make([]string, len(m.Procs))
	for r, p := range m.Procs {
		names[r] = m.Hosts[p.Node].Name
	}
	return strings.Join(names, " ")
}

// mustHosts parses a --host value for a test.
func mustHosts(t *testing.T, s string) []Host {
	t.Helper()
	h, err := ParseHosts(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// mustHostfile parses a hostfile for a test.
func mustHostfile(t *testing.T, s string) []Host {
	t.Helper()
	h, err := ParseHostfile("hosts", strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestPlace(t *testing.T) {
	// Cases marked "ompi" are what mpirun.openmpi 4.1.4 prints with
	// --display-map --do-not-launch --bind-to none for the same options.
	tests := []struct {
		name  string
		hosts string // --host syntax, or a hostfile when it holds a newline
		o     Options
		want  string // each rank's host
	}{
		{"default fills slots in host order (ompi)", "a:3,b:1", Options{NP: []int{4}}, "a a a b"},
		{"--host a,b:4,a (ompi)", "a,b:4,a", Options{NP: []int{6}}, "a a b b b b"},
		{"no -np fills every slot", "a:2,b:3", Options{}, "a a b b b"},
		{"Open MPI's --host a,b:2,c:3 example", "a,b:2,c:3", Options{}, "a b b c c c"},
		{"Open MPI's hostfile example", "# example\nfoo.example.com\nbar.example.com slots=2\n", Options{NP: []int{3}}, "foo.example.com bar.example.com bar.example.com"},
		{"fewer ranks than slots", "a:2,b:2", Options{NP: []int{3}}, "a a b"},
		{"map-by node (ompi)", "a:2,b:2", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode}}, "a b a b"},
		{"map-by node, odd count (ompi)", "a:2,b:2", Options{NP: []int{3}, MapBy: MapBy{Mapping: MapNode}}, "a b a"},
		{"map-by node skips full hosts (ompi)", "a:3,b:1", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode}}, "a b a a"},
		{"map-by node, three hosts (ompi)", "a:3,b:1,c:1", Options{NP: []int{5}, MapBy: MapBy{Mapping: MapNode}}, "a b c a a"},
		{"map-by node, no -np (ompi)", "a:2,b:2", Options{MapBy: MapBy{Mapping: MapNode}}, "a b a b"},
		{"rank-by node after map-by slot (ompi)", "a:2,b:2", Options{NP: []int{4}, RankBy: RankNode}, "a b a b"},
		{"rank-by node, uneven (ompi)", "a:3,b:1,c:2", Options{NP: []int{5}, RankBy: RankNode}, "a b c a a"},
		{"rank-by slot after map-by node (ompi)", "a:2,b:2", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode}, RankBy: RankSlot}, "a a b b"},
		{"ppr:2:node on 3 hosts (ompi)", "a:2,b:2,c:2", Options{MapBy: MapBy{Mapping: MapPPR, PerNode: 2}}, "a a b b c c"},
		{"ppr with fewer ranks (ompi)", "a:2,b:2,c:2", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapPPR, PerNode: 2}}, "a a b b"},
		{"ppr:1:node -np 2 (ompi)", "a:2,b:2,c:2", Options{NP: []int{2}, MapBy: MapBy{Mapping: MapPPR, PerNode: 1}}, "a b"},
		{"ppr rank-by node (ompi)", "a:2,b:2,c:2", Options{MapBy: MapBy{Mapping: MapPPR, PerNode: 2}, RankBy: RankNode}, "a b c a b c"},
		{"-N 1 (ompi)", "a:2,b:2,c:2", Options{PerNode: 1}, "a b c"},
		{"-N 2 -np 4 rank-by node (ompi)", "a:2,b:2,c:2", Options{NP: []int{4}, PerNode: 2, RankBy: RankNode}, "a b a b"},
		{"ppr over slots with --oversubscribe (ompi)", "a,b,c", Options{MapBy: MapBy{Mapping: MapPPR, PerNode: 2}, Oversubscribe: true}, "a a b b c c"},
		{"oversubscribed by slot: leftovers spread evenly (ompi)", "a:3,b:1", Options{NP: []int{7}, Oversubscribe: true}, "a a a a a b b"},
		{"oversubscribed hostfile by slot (ompi)", "node0 slots=2 max_slots=20\nnode1 slots=2 max_slots=20\n", Options{NP: []int{8}, Oversubscribe: true}, "node0 node0 node0 node0 node1 node1 node1 node1"},
		{"oversubscribed by node", "a:2,b:2", Options{NP: []int{8}, MapBy: MapBy{Mapping: MapNode}, Oversubscribe: true}, "a b a b a b a b"},
		// Open MPI 4.1.4 gives a 4 and b 3 here, ignoring the slots once
		// oversubscribed; the documented rule (fill, then one more per host
		// per round) gives a 5 and b 2, then ranked by node.
		{"oversubscribed by node, uneven", "a:3,b:1", Options{NP: []int{7}, MapBy: MapBy{Mapping: MapNode}, Oversubscribe: true}, "a b a b a a a"},
		{":OVERSUBSCRIBE modifier", "a,b", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode, Oversubscribe: true}}, "a b a b"},
		// max_slots is a hard limit: the rounds skip a at 3 (Open MPI
		// 4.1.4 puts 5 on a, ignoring it).
		{"max_slots caps oversubscription", "a slots=2 max_slots=3\nb slots=2 max_slots=10\n", Options{NP: []int{9}, Oversubscribe: true}, "a a a b b b b b b"},
		{"max_slots with map-by node", "a slots=1 max_slots=2\nb slots=1\n", Options{NP: []int{5}, MapBy: MapBy{Mapping: MapNode}, Oversubscribe: true}, "a b a b b"},
		{"unknown slots with -np", "a\nb\n", Options{NP: []int{2}}, "a b"},
		{"local host", "", Options{NP: []int{2}, Local: Host{Name: "here", Slots: 4}}, "here here"},
		{"local host fills its slots", "", Options{Local: Host{Name: "here", Slots: 3}}, "here here here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hosts []Host
			switch {
			case strings.Contains(tt.hosts, "\n"):
				hosts = mustHostfile(t, tt.hosts)
			case tt.hosts != "":
				hosts = mustHosts(t, tt.hosts)
			}
			m, err := Place(hosts, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := hostsOf(m); got != tt.want {
				t.Errorf("placement %q, want %q", got, tt.want)
			}
			checkLocal(t, m)
		})
	}
}

// checkLocal verifies the local ranks and sizes against the placement:
// each host's ranks, in rank order, are local ranks 0..n-1 of size n.
func checkLocal(t *testing.T, m *Map) {
	t.Helper()
	seen := make([]int, len(m.Hosts))
	size := make([]int, len(m.Hosts))
	for _, p := range m.Procs {
		size[p.Node]++
	}
	for r, p := range m.Procs {
		if p.LocalRank != seen[p.Node] || p.LocalSize != size[p.Node] {
			t.Errorf("rank %d on %s: local rank %d of %d, want %d of %d", r, m.Hosts[p.Node].Name, p.LocalRank, p.LocalSize, seen[p.Node], size[p.Node])
		}
		seen[p.Node]++
	}
}

func TestPlaceAppContexts(t *testing.T) {
	// Each context is mapped onto the slots the ones before it left; all
	// marked "ompi" are what mpirun.openmpi 4.1.4 prints for
	// "-np N1 prog : -np N2 prog".
	tests := []struct {
		name  string
		hosts string
		o     Options
		want  string // each rank's host and app context
	}{
		{"by slot (ompi)", "a:3,b:3", Options{NP: []int{1, 4}}, "a/0 a/1 a/1 b/1 b/1"},
		{"by node (ompi)", "a:3,b:3", Options{NP: []int{1, 4}, MapBy: MapBy{Mapping: MapNode}}, "a/0 a/1 b/1 a/1 b/1"},
		{"by node, first context fills a host (ompi)", "a:2,b:2", Options{NP: []int{3, 1}, MapBy: MapBy{Mapping: MapNode}}, "a/0 b/0 a/0 b/1"},
		{"by node, even (ompi)", "a:3,b:3", Options{NP: []int{3, 3}, MapBy: MapBy{Mapping: MapNode}}, "a/0 b/0 a/0 a/1 b/1 b/1"},
		{"by node, rank-by slot (ompi)", "a:2,b:2", Options{NP: []int{1, 3}, MapBy: MapBy{Mapping: MapNode}, RankBy: RankSlot}, "a/0 a/1 b/1 b/1"},
		{"ppr per context (ompi)", "a:2,b:2", Options{NP: []int{2, 2}, MapBy: MapBy{Mapping: MapPPR, PerNode: 1}}, "a/0 b/0 a/1 b/1"},
		// Open MPI asks for every slot again here and fails; the free ones
		// are what such a command line can mean.
		{"no -np fills the free slots", "a:2,b:2", Options{NP: []int{1, 0}}, "a/0 a/1 b/1 b/1"},
		{"oversubscribed across contexts", "a:1,b:1", Options{NP: []int{2, 2}, Oversubscribe: true}, "a/0 b/0 a/1 b/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Place(mustHosts(t, tt.hosts), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range m.Procs {
				got = append(got, fmt.Sprintf("%s/%d", m.Hosts[p.Node].Name, p.App))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("placement %q, want %q", strings.Join(got, " "), tt.want)
			}
			checkLocal(t, m)
		})
	}

	errs := []struct {
		name  string
		hosts string
		o     Options
		want  []string
	}{
		{"second context over the slots", "a:2", Options{NP: []int{1, 2}}, []string{"app context 2:", "3 ranks do not fit the 2 slots", "--oversubscribe"}},
		{"no -np with every slot taken", "a:2,b:2", Options{NP: []int{4, 0}}, []string{"app context 2:", "every slot is taken", "a (2 slots)", "give -np"}},
		{"ppr over slots in the second context", "a:1,b:1", Options{NP: []int{2, 2}, PerNode: 1}, []string{"app context 2:", "ppr:1:node puts 2 ranks on host a, which has 1 slot"}},
		{"negative -np in a context", "a", Options{NP: []int{1, -1}}, []string{"app context 2:", "-np -1"}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Place(mustHosts(t, tt.hosts), tt.o)
			checkErr(t, "Place", err, tt.want)
		})
	}
}

func TestPlaceLocalRanks(t *testing.T) {
	m, err := Place(mustHosts(t, "a:2,b:2"), Options{NP: []int{4}, RankBy: RankNode})
	if err != nil {
		t.Fatal(err)
	}
	want := []Proc{{0, 0, 0, 2}, {0, 1, 0, 2}, {0, 0, 1, 2}, {0, 1, 1, 2}}
	for r, p := range m.Procs {
		if p != want[r] {
			t.Errorf("rank %d: %+v, want %+v", r, p, want[r])
		}
	}
	if m.MapBy.String() != "slot" || m.RankBy != RankNode {
		t.Errorf("policies %s, %s; want slot, node", m.MapBy, m.RankBy)
	}
}

func TestPlaceResolvesPolicies(t *testing.T) {
	tests := []struct {
		o             Options
		mapBy, rankBy string
	}{
		{Options{NP: []int{1}}, "slot", "slot"},
		{Options{NP: []int{1}, MapBy: MapBy{Mapping: MapNode}}, "node", "node"},
		{Options{NP: []int{1}, PerNode: 2}, "ppr:2:node", "slot"},
		{Options{NP: []int{1}, MapBy: MapBy{Mapping: MapNode}, RankBy: RankSlot}, "node", "slot"},
	}
	for _, tt := range tests {
		m, err := Place(mustHosts(t, "a:2,b:2"), tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if m.MapBy.String() != tt.mapBy || m.RankBy.String() != tt.rankBy {
			t.Errorf("%+v: map-by %s rank-by %s, want %s %s", tt.o, m.MapBy, m.RankBy, tt.mapBy, tt.rankBy)
		}
	}
}

func TestPlaceErrors(t *testing.T) {
	tests := []struct {
		name  string
		hosts string
		o     Options
		want  []string
	}{
		{"not enough slots", "a,b", Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode}},
			[]string{"4 ranks", "2 slots", "2 hosts: a (1), b (1)", "--oversubscribe", "slots=N"}},
		{"not enough slots by slot", "a:2,b:4", Options{NP: []int{7}}, []string{"7 ranks", "6 slots", "a (2), b (4)", "--oversubscribe"}},
		{"not enough local slots", "", Options{NP: []int{3}, Local: Host{Name: "here", Slots: 2}}, []string{"3 ranks do not fit the 2 slots of 1 host: here (2)"}},
		{"unknown slots named", "a\nb slots=1\n", Options{NP: []int{3}}, []string{"a (1, no slots= in the hostfile)", "b (1)"}},
		{"max_slots stops --oversubscribe", "a slots=1 max_slots=2\nb slots=2 max_slots=2\n", Options{NP: []int{5}, Oversubscribe: true},
			[]string{"5 ranks", "even with --oversubscribe", "max_slots allows 4", "a (max_slots=2), b (max_slots=2)", "raise max_slots="}},
		{"ppr does not fit -np", "a:2,b:2,c:2", Options{NP: []int{8}, MapBy: MapBy{Mapping: MapPPR, PerNode: 2}},
			[]string{"-np 8", "ppr:2:node", "at most 6 ranks on 3 hosts"}},
		{"npernode does not fit -np", "a:2,b:2", Options{NP: []int{5}, PerNode: 2}, []string{"-np 5", "ppr:2:node", "at most 4 ranks on 2 hosts"}},
		{"ppr over slots", "a,b,c", Options{MapBy: MapBy{Mapping: MapPPR, PerNode: 2}},
			[]string{"ppr:2:node puts 2 ranks on host a, which has 1 slot:", "--oversubscribe"}},
		{"ppr over max_slots", "a slots=1 max_slots=1\n", Options{PerNode: 2, Oversubscribe: true},
			[]string{"puts 2 ranks on host a", "max_slots=1", "even --oversubscribe"}},
		{"-N with --map-by", "a:2", Options{PerNode: 2, MapBy: MapBy{Mapping: MapNode}}, []string{"-N 2 and --map-by node conflict", "ppr:2:node"}},
		{"negative -np", "a", Options{NP: []int{-1}}, []string{"-np -1", "want 0"}},
		{"negative -N", "a", Options{PerNode: -2}, []string{"-N -2", "positive"}},
		{"ppr without count", "a", Options{MapBy: MapBy{Mapping: MapPPR}}, []string{"ppr:0:node", "positive"}},
		{"bad rank-by value", "a", Options{RankBy: 7}, []string{"rank-by policy 7", "slot or node"}},
		{"bad map-by value", "a", Options{MapBy: MapBy{Mapping: 9}}, []string{"map-by policy 9", "ppr:N:node"}},
		{"huge -np", "a", Options{NP: []int{1 << 30}, Oversubscribe: true}, []string{"-np 1073741824", "at most 1048576"}},
		{"no -np with unknown slots", "a\nb slots=2\n", Options{}, []string{"no rank count", "no slots= for a", "give -np"}},
		{"no local slots", "", Options{Local: Host{Name: "here"}}, []string{"host here has 0 slots", "want 1 or more"}},
		{"no local name", "", Options{Local: Host{Slots: 1}}, []string{"empty host name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hosts []Host
			switch {
			case strings.Contains(tt.hosts, "\n"):
				hosts = mustHostfile(t, tt.hosts)
			case tt.hosts != "":
				hosts = mustHosts(t, tt.hosts)
			}
			_, err := Place(hosts, tt.o)
			checkErr(t, "Place", err, tt.want)
		})
	}
}

func TestPlaceRefusesBadHostLists(t *testing.T) {
	tests := []struct {
		hosts []Host
		want  []string
	}{
		{[]Host{{Name: "a", Slots: 1}, {Name: "a", Slots: 2}}, []string{"host a listed twice"}},
		{[]Host{{Name: "a", Slots: 3, MaxSlots: 2}}, []string{"max_slots=2", "less than its 3 slots"}},
		{[]Host{{Name: "a b", Slots: 1}}, []string{`"a b"`}},
	}
	for _, tt := range tests {
		_, err := Place(tt.hosts, Options{NP: []int{1}})
		checkErr(t, fmt.Sprintf("Place(%+v)", tt.hosts), err, tt.want)
	}
}

func TestPlaceLongHostListInError(t *testing.T) {
	var hosts []Host
	for i := range 20 {
		hosts = append(hosts, Host{Name: fmt.Sprintf("n%02d", i), Slots: 1})
	}
	_, err := Place(hosts, Options{NP: []int{21}})
	checkErr(t, "Place(20 hosts)", err, []string{"20 slots", "20 hosts: n00 (1)", "n07 (1), and 12 more"})
}

func TestPlaceLopsided(t *testing.T) {
	hosts := []Host{{Name: "big", Slots: 1 << 16}}
	for i := range 1000 {
		hosts = append(hosts, Host{Name: fmt.Sprintf("n%d", i), Slots: 1})
	}
	for _, r := range []RankBy{RankSlot, RankNode} {
		m, err := Place(hosts, Options{RankBy: r})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Procs) != 1<<16+1000 {
			t.Fatalf("rank-by %s: %d ranks, want %d", r, len(m.Procs), 1<<16+1000)
		}
		checkLocal(t, m)
	}
}

// TestRoundsMatchesOneByOne checks the shortcut in rounds against dealing
// one rank at a time.
func TestRoundsMatchesOneByOne(t *testing.T) {
	bases := [][]int{{0, 0, 0}, {3, 1, 2}, {2, 2}, {0, 5, 0, 1}}
	limits := [][]int{{1, 4, 2}, {0, 2, 5}, {0, 0}, {3, 0, 1, 1}}
	for i := range bases {
		for n := 0; n < 20; n++ {
			got, gotLeft := rounds(bases[i], limits[i], n)
			want := append([]int(nil), bases[i]...)
			left := n
			for progress := true; left > 0 && progress; {
				progress = false
				for j := range want {
					if left > 0 && (limits[i][j] == 0 || want[j] < limits[i][j]) {
						want[j]++
						left--
						progress = true
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || gotLeft != left {
				t.Errorf("rounds(%v, %v, %d) = %v, %d; want %v, %d", bases[i], limits[i], n, got, gotLeft, want, left)
			}
		}
	}
}
