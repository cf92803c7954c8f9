package hostmap

import (
	"strings"
	"testing"
)

func TestWriteMap(t *testing.T) {
	hosts := mustHostfile(t, "alice@node0 slots=2 max_slots=4\nnode1 slots=2\nnode2 slots=1\n")
	m, err := Place(hosts, Options{NP: []int{4}, MapBy: MapBy{Mapping: MapNode}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMap(&b, m, []string{"cpu 0", "cpu 0", "", "cpu 1"}); err != nil {
		t.Fatal(err)
	}
	want := `job map: 4 ranks on 3 of 3 hosts, map-by node, rank-by node
host         slots  max_slots  procs  ranks
alice@node0  2      4          2      0,3
node1        2      -          1      1
node2        1      -          1      2

rank  host   local_rank  local_size  binding
0     node0  0           2           cpu 0
1     node1  0           1           cpu 0
2     node2  0           1           -
3     node0  1           2           cpu 1
`
	if b.String() != want {
		t.Errorf("WriteMap printed\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMapRunsAndIdleHosts(t *testing.T) {
	m, err := Place(mustHosts(t, "a:4,b:2,c:2"), Options{NP: []int{5}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMap(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	want := `job map: 5 ranks on 2 of 3 hosts, map-by slot, rank-by slot
host  slots  max_slots  procs  ranks
a     4      -          4      0-3
b     2      -          1      4
c     2      -          0      -

rank  host  local_rank  local_size  binding
0     a     0           4           -
1     a     1           4           -
2     a     2           4           -
3     a     3           4           -
4     b     0           1           -
`
	if b.String() != want {
		t.Errorf("WriteMap printed\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMapAppContexts(t *testing.T) {
	m, err := Place(mustHosts(t, "a:2,b:2"), Options{NP: []int{1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMap(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	want := `job map: 4 ranks on 2 of 2 hosts, map-by slot, rank-by slot
host  slots  max_slots  procs  ranks
a     2      -          2      0-1
b     2      -          2      2-3

rank  app  host  local_rank  local_size  binding
0     0    a     0           2           -
1     1    a     1           2           -
2     1    b     0           2           -
3     1    b     1           2           -
`
	if b.String() != want {
		t.Errorf("WriteMap printed\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMapBindingCount(t *testing.T) {
	m, err := Place(mustHosts(t, "a:2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = WriteMap(&strings.Builder{}, m, []string{"x"})
	checkErr(t, "WriteMap", err, []string{"1 bindings for 2 ranks", "one per rank"})
}

func TestRankList(t *testing.T) {
	for in, want := range map[string][]int{"-": nil, "0": {0}, "0-3": {0, 1, 2, 3}, "0,2,4": {0, 2, 4}, "0-2,5,7-8": {0, 1, 2, 5, 7, 8}} {
		if got := rankList(want); got != in {
			t.Errorf("rankList(%v) = %q, want %q", want, got, in)
		}
	}
}
