// Package self is the coll component of communicators of one rank: every
// collective is a copy from send to recv, or nothing, with no message.
// It declines every larger communicator.
package self

import (
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mca"
)

// Component is the self coll component.
type Component struct {
	coll.BaseComponent
}

// info is the component's identity; tests build it with info.Instantiate.
var info = coll.Info("self", mca.Version{Major: 1}, 75, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

func newComponent() *Component { return info.Instantiate().(*Component) }

// CommQuery offers every collective on a communicator of one rank and
// declines any other.
func (*Component) CommQuery(c coll.Comm, q coll.Query) (int, *coll.Module, error) {
	if c.Size() != 1 {
		return 0, nil, nil
	}
	return q.Priority, newModule(), nil
}

func newModule() *coll.Module {
	return &coll.Module{
		Concurrent:         true, // no messages, no state: non-blocking calls may run it
		Barrier:            func(coll.Comm) error { return nil },
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
