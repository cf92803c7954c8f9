package launcher

import (
	"fmt"
	"reflect"
	"testing"
)

func TestTreeOf(t *testing.T) {
	hosts := func(n int) []string {
		var hs []string
		for i := range n {
			hs = append(hs, fmt.Sprintf("n%02d", i))
		}
		return hs
	}
	for _, tc := range []struct {
		n, fanout int
		leaders   int
		kids      []int // children per leader
	}{
		{n: 3, fanout: 0, leaders: 3, kids: []int{0, 0, 0}},
		{n: 3, fanout: 8, leaders: 3, kids: []int{0, 0, 0}},
		{n: 8, fanout: 8, leaders: 8, kids: []int{0, 0, 0, 0, 0, 0, 0, 0}},
		{n: 9, fanout: 8, leaders: 8, kids: []int{1, 0, 0, 0, 0, 0, 0, 0}},
		{n: 64, fanout: 8, leaders: 8, kids: []int{7, 7, 7, 7, 7, 7, 7, 7}},
		{n: 5, fanout: 2, leaders: 2, kids: []int{2, 1}},
	} {
		leaders, kids := treeOf(hosts(tc.n), tc.fanout)
		var counts []int
		seen := map[string]bool{}
		for i := range leaders {
			counts = append(counts, len(kids[i]))
			seen[leaders[i]] = true
			for _, k := range kids[i] {
				seen[k] = true
			}
		}
		if len(leaders) != tc.leaders || !reflect.DeepEqual(counts, tc.kids) || len(seen) != tc.n {
			t.Errorf("%d hosts, fanout %d: %d leaders with %v children covering %d hosts; want %d with %v covering all",
				tc.n, tc.fanout, len(leaders), counts, len(seen), tc.leaders, tc.kids)
		}
	}
}

func TestSpecChildrenChecked(t *testing.T) {
	s := DaemonSpec{Size: 1, JobID: "j", Servers: []string{"a:1"}, Secret: []byte("s"), Apps: []App{{Program: "p"}},
		Ranks: []DaemonRank{{}}, Children: []ChildAgent{{Host: "h2"}}}
	b, err := encodeSpec(&s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeSpec(b); err == nil {
		t.Fatal("a child without the agent's command line was accepted")
	}
}
