package han

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	_ "github.com/gompi/gompi/components/coll/basic" // registers the component below han
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
)

// layout is a named placement of ranks on nodes (Host.Nodes).
type layout struct {
	name  string
	nodes []int
}

// blocks puts n ranks on nodes of per consecutive ranks each.
func blocks(n, per int) layout {
	nodes := make([]int, n)
	for r := range nodes {
		nodes[r] = r / per
	}
	return layout{fmt.Sprintf("blocks%d", per), nodes}
}

// roundRobin deals n ranks to k nodes in turn, as --map-by node does.
func roundRobin(n, k int) layout {
	nodes := make([]int, n)
	for r := range nodes {
		nodes[r] = r % k
	}
	return layout{fmt.Sprintf("roundrobin%d", k), nodes}
}

// uneven puts rank 0 alone on node 0, the next two on node 1 and the rest
// on node 2: nodes of 1, 2 and n-3 ranks.
func uneven(n int) layout {
	nodes := make([]int, n)
	for r := range nodes {
		switch {
		case r == 0:
			nodes[r] = 0
		case r < 3:
			nodes[r] = 1
		default:
			nodes[r] = 2
		}
	}
	return layout{"uneven", nodes}
}

// loneLast puts the last rank alone on node 1 and the others on node 0.
func loneLast(n int) layout {
	nodes := make([]int, n)
	nodes[n-1] = 1
	return layout{"lonelast", nodes}
}

// mixed deals ranks to nodes 0,1,0,2,1,2,0,... : neither consecutive nor
// round robin.
func mixed(n int) layout {
	pattern := []int{0, 1, 0, 2, 1, 2, 0, 1, 2}
	nodes := make([]int, n)
	for r := range nodes {
		nodes[r] = pattern[r]
	}
	return layout{"mixed", nodes}
}

// layouts are the placements of n ranks the tests run on, those han
// serves: more than one node, more than one rank on some node.
func layouts(n int) []layout {
	var out []layout
	for _, l := range []layout{blocks(n, 2), blocks(n, 3), roundRobin(n, 2), roundRobin(n, 3), uneven(n), loneLast(n), mixed(n)} {
		if serves(l.nodes) && !contains(out, l.nodes) {
			out = append(out, l)
		}
	}
	return out
}

func contains(ls []layout, nodes []int) bool {
	for _, l := range ls {
		if fmt.Sprint(l.nodes) == fmt.Sprint(nodes) {
			return true
		}
	}
	return false
}

// serves reports whether han takes a communicator placed on nodes.
func serves(nodes []int) bool {
	t, ok := newTopology(nodes, 0)
	return ok && len(t.leaders) > 1 && len(t.leaders) < len(nodes)
}

// sizes are the communicator sizes the tests run on.
var sizes = []int{2, 3, 4, 5, 6, 7, 8, 9}

// counted is a rank's communicator that counts the messages it sends to
// other nodes.
type counted struct {
	coll.Comm
	nodes []int
	cross *atomic.Int64
}

func (c *counted) count(dest int) {
	if c.nodes[dest] != c.nodes[c.Rank()] {
		c.cross.Add(1)
	}
}

func (c *counted) Send(buf []byte, dest, tag int) error {
	c.count(dest)
	return c.Comm.Send(buf, dest, tag)
}

func (c *counted) Isend(buf []byte, dest, tag int) coll.Request {
	c.count(dest)
	return c.Comm.Isend(buf, dest, tag)
}

// world is a colltest world whose ranks each have their own table, built
// from han over basic as each process builds its own.
type world struct {
	n      int
	lay    layout
	cw     *colltest.World
	comms  []coll.Comm
	tables []*coll.Table
	cross  atomic.Int64
}

// newWorld builds a world of n ranks on lay's nodes, with han configured
// by cfg; rendezvous makes every send wait for its receive.
func newWorld(t *testing.T, lay layout, cfg config, rendezvous bool) *world {
	t.Helper()
	n := len(lay.nodes)
	w := &world{n: n, lay: lay, cw: colltest.NewWorld(n), tables: make([]*coll.Table, n)}
	for r := range n {
		var c coll.Comm = w.cw.Comm(r)
		if rendezvous {
			c = colltest.NewRendezvous(c)
		}
		w.comms = append(w.comms, &counted{Comm: c, nodes: lay.nodes, cross: &w.cross})
	}
	w.cw.Run(t, func(c coll.Comm) error {
		r := c.Rank()
		cands := []coll.Candidate{
			{Name: "han", Component: &Component{cfg: cfg, log: hclog.NewNullLogger()}, Priority: 40},
			{Name: "basic", Component: basicComponent(t), Priority: 10},
		}
		tab, err := coll.Build(w.comms[r], cands, coll.Host{Nodes: lay.nodes, ID: "test"})
		w.tables[r] = tab
		return err
	})
	if t.Failed() {
		t.FailNow()
	}
	return w
}

// autoConfig leaves every collective to han's decision.
func autoConfig() config {
	var cfg config
	for i := range cfg.mode {
		cfg.mode[i] = modeAuto
	}
	return cfg
}

// run calls f on every rank with its table and communicator.
func (w *world) run(t testing.TB, f func(tab *coll.Table, c coll.Comm) error) {
	t.Helper()
	w.cw.Run(t, func(c coll.Comm) error { return f(w.tables[c.Rank()], w.comms[c.Rank()]) })
}

// basicComponent is a fresh coll basic, as the MCA instantiates it.
func basicComponent(t testing.TB) coll.Component {
	t.Helper()
	for _, reg := range mca.DefaultRegistry().Components(coll.Name) {
		if reg.Name == "basic" {
			return reg.Instantiate().(coll.Component)
		}
	}
	t.Fatal("coll basic is not registered")
	return nil
}

var testOps = []colltest.OpCase{colltest.SumCase, colltest.MatMulCase}
