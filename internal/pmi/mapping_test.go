package pmi

import (
	"reflect"
	"strings"
	"testing"
)

func TestNodeIDs(t *testing.T) {
	cases := []struct {
		from    string
		mapping string
		size    int
		want    []int
	}{
		{"Hydra -n 3 on one host", "(vector,(0,1,3))", 3, []int{0, 0, 0}},
		{"Hydra, 4 ranks on a host of 2 slots: the block repeats", "(vector,(0,1,2))", 4, []int{0, 0, 0, 0}},
		{"Hydra -ppn 2 on two hosts", "(vector,(0,2,2))", 4, []int{0, 0, 1, 1}},
		{"Hydra -hosts a:2,b:1 -n 5: two vectors, wrapping", "(vector,(0,1,2),(1,1,1))", 5, []int{0, 0, 1, 0, 0}},
		{"Slurm block, 8 tasks on 2 nodes", "(vector,(0,2,4))", 8, []int{0, 0, 0, 0, 1, 1, 1, 1}},
		{"Slurm cyclic, 8 tasks on 4 nodes", "(vector,(0,4,1))", 8, []int{0, 1, 2, 3, 0, 1, 2, 3}},
		{"Slurm uneven block", "(vector,(0,2,3),(2,1,2))", 8, []int{0, 0, 0, 1, 1, 1, 2, 2}},
		{"Slurm uneven cyclic, 5 tasks on 2 nodes", "(vector,(0,2,1),(0,2,1),(0,1,1))", 5, []int{0, 1, 0, 1, 0}},
		{"repeats from the first block at node 0", "(vector,(3,1,1),(0,1,1))", 4, []int{3, 0, 0, 0}},
		{"repeats everything without a node 0", "(vector,(2,1,1),(5,1,1))", 4, []int{2, 5, 2, 5}},
		{"spaces", " ( vector , ( 0 , 2 , 1 ) ) ", 2, []int{0, 1}},
		{"larger than needed", "(vector,(0,100000000,100000000))", 2, []int{0, 0}},
	}
	for _, tc := range cases {
		blocks, err := parseMapping(tc.mapping)
		if err != nil {
			t.Errorf("%s: %q: %v", tc.from, tc.mapping, err)
			continue
		}
		got, err := nodeIDs(blocks, tc.size)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q for %d ranks = %v, %v; want %v", tc.from, tc.mapping, tc.size, got, err, tc.want)
		}
	}
}

func TestMappingErrors(t *testing.T) {
	cases := []struct{ mapping, want string }{
		{"(vector)", "no (start,nodes,ppn) block"},
		{"(vector,(0,1))", `expected ","`},
		{"(vector,(0,1,2)", `expected ")"`},
		{"(hash,(0,1,1))", `expected "vector"`},
		{"(vector,(0,1,1)) junk", "end of the mapping"},
		{"(vector,(a,1,1))", "a number"},
		{"(vector,(-1,1,1))", "a number"},
		{"(vector,(0,1,99999999999))", "a number"},
		{"vector,(0,1,1)", `expected "("`},
		{"(vector,(0,0,3),(1,2,0))", "places no rank"},
	}
	for _, tc := range cases {
		blocks, err := parseMapping(tc.mapping)
		if err == nil {
			_, err = nodeIDs(blocks, 4)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.mapping, err, tc.want)
		}
	}
}

func TestNodeOf(t *testing.T) {
	n, err := nodeOf("(vector,(0,1,2),(1,1,1))", true, 3, 5)
	if err != nil || n.ID != 0 || n.LocalRank != 2 || !reflect.DeepEqual(n.Ranks, []int{0, 1, 3, 4}) {
		t.Errorf("rank 3 = %+v, %v", n, err)
	}
	for _, m := range []string{"", "  "} {
		if _, err := nodeOf(m, true, 0, 1); err != errNoMapping {
			t.Errorf("mapping %q: %v, want errNoMapping", m, err)
		}
	}
	if _, err := nodeOf("", false, 0, 1); err != errNoMapping {
		t.Errorf("no mapping: %v", err)
	}
	if _, err := nodeOf("(vector,(0,1", true, 0, 1); err == nil || !strings.Contains(err.Error(), "PMI_process_mapping") {
		t.Errorf("bad mapping: %v", err)
	}
}

// TestNodeWithoutMapping: a launcher without a mapping still opens; Node
// says the layout is unknown.
func TestNodeWithoutMapping(t *testing.T) {
	for _, v := range versions {
		j := newFakeJob(1)
		j.mapping = ""
		c, err := j.openFD(t, 0, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Node(); err != errNoMapping {
			t.Errorf("%v: Node = %v, want errNoMapping", v, err)
		}
		c.Finalize()
	}
}

func TestParseMessage(t *testing.T) {
	rep, err := parseMessage("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;;;")
	if err != nil || rep.cmd != "kvs-get-response" || rep.kv["value"] != "a;b;" || rep.kv["found"] != "TRUE" {
		t.Errorf("got %+v, %v", rep, err)
	}
	// Without the final ';' the last pair still counts.
	rep, err = parseMessage("cmd=x;rc=0")
	if err != nil || rep.kv["rc"] != "0" {
		t.Errorf("got %+v, %v", rep, err)
	}
}
