package han

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
)

// module runs one communicator's collectives in two levels.
type module struct {
	topo *topology
	log  hclog.Logger
	next *coll.Module // what the components below provide (Below)
}

// collectives is the framework's view of the module.
func (m *module) collectives() *coll.Module {
	return &coll.Module{
		Barrier:   m.barrier,
		Bcast:     m.bcast,
		Reduce:    m.reduce,
		Allreduce: m.allreduce,
		Gather:    m.gather,
		Scatter:   m.scatter,
		Allgather: m.allgather,
		Below:     func(next *coll.Module) { m.next = next },
	}
}

// Errors name the level at which they happened: the framework names the
// component, the collective and the communicator, the p2p layer the peer.

func (m *module) inNode(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("within node %d: %w", m.topo.node, err)
}

func amongNodes(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("among the nodes: %w", err)
}

// traceNext logs, when tracing, that a call of collective goes to the
// next component because its operation is not commutative and the nodes'
// ranks are not consecutive.
func (m *module) traceNext(c coll.Comm, collective string) {
	if m.log.IsTrace() {
		m.log.Trace("non-commutative operation on nodes whose ranks are not consecutive: passed to the next component",
			"collective", collective, "comm", c.Name())
	}
}

// passed says that err came from the next component, which han called
// for a call it cannot run in two levels.
func passed(err error) error {
	if err == nil || errors.Is(err, coll.ErrNoProvider) {
		return err
	}
	return fmt.Errorf("passed to the next component: %w", err)
}

// errNoNext is a call han passes down where no component below provides
// the collective.
func errNoNext(why string) error {
	return fmt.Errorf("%s, and %w", why, coll.ErrNoProvider)
}

// reps are the ranks that stand for their nodes in a call rooted at
// root: root first, for its node, then the other nodes' leaders.
func (t *topology) reps(root int) []int {
	out := make([]int, 0, len(t.leaders))
	out = append(out, root)
	for k, l := range t.leaders {
		if k != t.nodeOf[root] {
			out = append(out, l)
		}
	}
	return out
}

// localFrom is this rank's node's ranks headed by its node's
// representative in a call rooted at root: root on root's node, the
// leader elsewhere.
func (t *topology) localFrom(root int) []int {
	local := t.local()
	if t.nodeOf[root] != t.node || local[0] == root {
		return local
	}
	return append([]int{root}, without(local, root)...)
}
