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
			hs = append(hs, fmt.Sprintf("n%03d", i))
		}
		return hs
	}
	for _, tc := range []struct {
		n, fanout int
		levels    []int // hosts on each level
		kids      []int // children of each root
	}{
		{n: 3, fanout: 0, levels: []int{3}, kids: []int{0, 0, 0}},
		{n: 3, fanout: 8, levels: []int{3}, kids: []int{0, 0, 0}},
		{n: 8, fanout: 8, levels: []int{8}, kids: []int{0, 0, 0, 0, 0, 0, 0, 0}},
		{n: 9, fanout: 8, levels: []int{8, 1}, kids: []int{1, 0, 0, 0, 0, 0, 0, 0}},
		{n: 64, fanout: 8, levels: []int{8, 56}, kids: []int{7, 7, 7, 7, 7, 7, 7, 7}},
		{n: 5, fanout: 2, levels: []int{2, 3}, kids: []int{2, 1}},
		{n: 4, fanout: 1, levels: []int{1, 1, 1, 1}, kids: []int{1}},
		{n: 100, fanout: 8, levels: []int{8, 64, 28}, kids: []int{8, 8, 8, 8, 8, 8, 8, 8}},
		{n: 4096, fanout: 8, levels: []int{8, 64, 512, 3512}, kids: []int{8, 8, 8, 8, 8, 8, 8, 8}},
	} {
		roots := treeOf(hosts(tc.n), tc.fanout)
		var kids, levels []int
		for _, r := range roots {
			kids = append(kids, len(r.kids))
		}
		seen := map[string]bool{}
		for level := roots; len(level) > 0; {
			levels = append(levels, len(level))
			var next []*treeNode
			for _, n := range level {
				if seen[n.host] {
					t.Errorf("%d hosts, fanout %d: %s is in the tree twice", tc.n, tc.fanout, n.host)
				}
				seen[n.host] = true
				if tc.fanout > 0 && len(n.kids) > tc.fanout {
					t.Errorf("%d hosts, fanout %d: %s has %d children", tc.n, tc.fanout, n.host, len(n.kids))
				}
				next = append(next, n.kids...)
			}
			level = next
		}
		if !reflect.DeepEqual(levels, tc.levels) || !reflect.DeepEqual(kids, tc.kids) || len(seen) != tc.n {
			t.Errorf("%d hosts, fanout %d: levels %v, roots' children %v, covering %d hosts; want %v, %v and all",
				tc.n, tc.fanout, levels, kids, len(seen), tc.levels, tc.kids)
		}
	}
}
