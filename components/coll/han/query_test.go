package han

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// TestQueryDeclines: han takes a communicator only where two levels save
// messages between nodes.
func TestQueryDeclines(t *testing.T) {
	comp := &Component{cfg: autoConfig(), log: hclog.NewNullLogger()}
	for _, tc := range []struct {
		name  string
		host  coll.Host
		size  int
		takes bool
	}{
		{"nodes unknown", coll.Host{}, 4, false},
		{"one node", coll.Host{OneNode: true, Nodes: []int{0, 0, 0, 0}}, 4, false},
		{"one rank a node", coll.Host{Nodes: []int{0, 1, 2, 3}}, 4, false},
		{"nodes not numbered by first rank", coll.Host{Nodes: []int{1, 1, 0, 0}}, 4, false},
		{"a node index skipped", coll.Host{Nodes: []int{0, 0, 2, 2}}, 4, false},
		{"nodes shorter than the communicator", coll.Host{Nodes: []int{0, 0, 1}}, 4, false},
		{"blocks of two", coll.Host{Nodes: []int{0, 0, 1, 1}}, 4, true},
		{"round robin", coll.Host{Nodes: []int{0, 1, 0, 1}}, 4, true},
		{"one node of one rank", coll.Host{Nodes: []int{0, 0, 0, 1}}, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := colltest.NewWorld(tc.size)
			_, mod, err := comp.CommQuery(w.Comm(0), coll.Query{Priority: 40, Host: tc.host})
			if err != nil {
				t.Fatal(err)
			}
			if (mod != nil) != tc.takes {
				t.Errorf("module %v, want one: %v", mod != nil, tc.takes)
			}
		})
	}
}

// TestModes: "next" and, in auto mode, a forced tuned algorithm leave a
// collective to the next component; "hierarchical" keeps it whatever
// tuned's parameters say.
func TestModes(t *testing.T) {
	host := coll.Query{Priority: 40, Host: coll.Host{Nodes: []int{0, 0, 1, 1}}}
	w := colltest.NewWorld(4)
	for _, tc := range []struct {
		name   string
		mode   string
		forced bool
		has    bool
	}{
		{"auto", modeAuto, false, true},
		{"auto, tuned forced", modeAuto, true, false},
		{"hierarchical, tuned forced", modeHierarchical, true, true},
		{"next", modeNext, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, k := range collectives {
				cfg := autoConfig()
				cfg.mode[i] = tc.mode
				cfg.tunedForced[i] = tc.forced
				_, mod, err := (&Component{cfg: cfg}).CommQuery(w.Comm(0), host)
				if err != nil || mod == nil {
					t.Fatalf("query: %v, %v", mod, err)
				}
				for j, other := range collectives {
					if got, want := provides(mod, other.name), j != i || tc.has; got != want {
						t.Errorf("mode %s for %s: han provides %s: %v, want %v", tc.mode, k.name, other.name, got, want)
					}
				}
			}
		})
	}
}

// TestNonCommutativeScattered: a non-commutative reduction on nodes whose
// ranks are not consecutive goes to the next component, which keeps rank
// order; on consecutive nodes han runs it in two levels.
func TestNonCommutativeScattered(t *testing.T) {
	for _, lay := range []layout{roundRobin(6, 3), blocks(6, 2)} {
		t.Run(lay.name, func(t *testing.T) {
			w := newWorld(t, lay, autoConfig(), false)
			in := colltest.Inputs(6, func(r int) []byte { return colltest.Data(1, r, 16*10) })
			want := colltest.Fold(colltest.MatMul{}, in)
			before := w.cross.Load()
			w.run(t, func(tab *coll.Table, c coll.Comm) error {
				recv := make([]byte, len(want))
				if err := tab.Allreduce(c, in[c.Rank()], recv, colltest.MatMul{}); err != nil {
					return err
				}
				return colltest.ExpectEqual(recv, want, "allreduce matmul", c.Rank())
			})
			// han's small allreduce sends nodes(nodes-1) messages between
			// nodes; basic's reduce and bcast send more.
			got, hier := w.cross.Load()-before, int64(3*(3-1))
			if lay.name == "blocks2" && got != hier {
				t.Errorf("%d messages between nodes, want han's %d", got, hier)
			}
			if lay.name != "blocks2" && got == hier {
				t.Errorf("%d messages between nodes: han's count, want the next component's", got)
			}
		})
	}
}

// provides reports whether mod has a function for collective name.
func provides(mod *coll.Module, name string) bool {
	switch name {
	case "barrier":
		return mod.Barrier != nil
	case "bcast":
		return mod.Bcast != nil
	case "reduce":
		return mod.Reduce != nil
	case "allreduce":
		return mod.Allreduce != nil
	case "gather":
		return mod.Gather != nil
	case "scatter":
		return mod.Scatter != nil
	case "allgather":
		return mod.Allgather != nil
	}
	panic(fmt.Sprintf("no collective %q", name))
}
