// Package basic is the coll component of linear algorithms: every
// collective, each in its plainest form, where the root talks to every
// other rank in turn or every pair of ranks exchanges directly. It is slow
// on large communicators but obviously right, the reference the other coll
// components are checked against and the fallback when none of them
// provides a collective.
//
// Reductions combine the operands in rank order, x0 ⊕ x1 ⊕ ... ⊕ x(n-1),
// whether or not the operation commutes, so that a given size and input
// always give the same result.
//
// When a receive fails partway (a message of the wrong length: counts that
// disagree between ranks), a collective still makes every other transfer of
// its algorithm, sending failure marks in place of data (coll.Payload), so
// that the other ranks fail too instead of waiting, and returns the first
// error. Arguments found wrong locally fail at once, before any message is
// sent, but for a block to itself of another length, which the others
// cannot see.
package basic

import (
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mca"
)

// Component is the basic coll component.
type Component struct {
	coll.BaseComponent
	module *coll.Module // stateless: one for every communicator
}

// info is the component's identity; tests build it with info.Instantiate.
var info = coll.Info("basic", mca.Version{Major: 1}, 10, func() mca.Component { return &Component{module: newModule()} })

func init() { mca.Register(info) }

func newComponent() *Component { return info.Instantiate().(*Component) }

// CommQuery offers every collective on every communicator.
func (c *Component) CommQuery(_ coll.Comm, q coll.Query) (int, *coll.Module, error) {
	if c.module == nil { // a Component not made by its factory
		return q.Priority, newModule(), nil
	}
	return q.Priority, c.module, nil
}

func newModule() *coll.Module {
	return &coll.Module{
		Concurrent:         true, // pure point-to-point, no state: non-blocking calls may run it
		Barrier:            barrier,
		Bcast:              bcast,
		Reduce:             reduce,
		Allreduce:          allreduce,
		Gather:             gather,
		Gatherv:            gatherv,
		Scatter:            scatter,
		Scatterv:           scatterv,
		Allgather:          allgather,
		Allgatherv:         allgatherv,
		Alltoall:           alltoall,
		Alltoallv:          alltoallv,
		ReduceScatter:      reduceScatter,
		ReduceScatterBlock: reduceScatterBlock,
		Scan:               scan,
		Exscan:             exscan,
		NeighborAllgather:  neighborAllgather,
		NeighborAllgatherv: neighborAllgatherv,
		NeighborAlltoall:   neighborAlltoall,
		NeighborAlltoallv:  neighborAlltoallv,
		Alltoallw:          alltoallw,
		NeighborAlltoallw:  neighborAlltoallw,
	}
}

var _ coll.Component = (*Component)(nil)
