package pmpi

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gompi/gompi/frameworks/coll"
)

// Topology is the kind of process topology a communicator carries.
type Topology int

// The topologies of TopoTest; a communicator without one gives Undefined.
const (
	Cart      Topology = iota + 1 // a Cartesian grid (MPI_CART)
	Graph                         // a graph every rank knows whole (MPI_GRAPH)
	DistGraph                     // a graph each rank knows its own edges of (MPI_DIST_GRAPH)
)

func (t Topology) String() string {
	switch t {
	case Cart:
		return "Cart"
	case Graph:
		return "Graph"
	case DistGraph:
		return "DistGraph"
	case Undefined:
		return "Undefined"
	}
	return fmt.Sprintf("Topology(%d)", int(t))
}

// describe names t in a sentence: "a Cartesian topology".
func (t Topology) describe() string {
	switch t {
	case Cart:
		return "a Cartesian topology"
	case Graph:
		return "a graph topology"
	case DistGraph:
		return "a distributed graph topology"
	}
	return "no topology"
}

// topology is what a communicator knows of its topology: one of its
// parts is set. It never changes once the communicator is made, so Dup
// shares it.
type topology struct {
	cart  *cartTopo
	graph *graphTopo
	dist  *distGraphTopo

	// nb is this rank's neighbourhood, worked out at the first
	// neighbourhood collective (neighbor.go).
	nbOnce sync.Once
	nb     coll.Neighbors
}

func (t *topology) kind() Topology {
	switch {
	case t == nil:
		return Undefined
	case t.cart != nil:
		return Cart
	case t.graph != nil:
		return Graph
	}
	return DistGraph
}

// TopoTest returns the topology of comm: Cart, Graph, DistGraph, or
// Undefined for none.
func (*realAPI) TopoTest(comm *Comm) (Topology, error) {
	if err := checkComm("topo test", comm); err != nil {
		return Undefined, err
	}
	return comm.topo.kind(), nil
}

// topoOf checks that comm is valid and carries the topology want, for
// the query op.
func topoOf(op string, comm *Comm, want Topology) (*topology, error) {
	if err := checkComm(op, comm); err != nil {
		return nil, err
	}
	if k := comm.topo.kind(); k != want {
		return nil, comm.handle(errorf(ClassTopology, nil, "%s on %v: the communicator has %s (want %s)", op, comm, k.describe(), want.describe()))
	}
	return comm.topo, nil
}

// topoArgs checks what every topology constructor needs: a running
// library and a valid intracommunicator.
func topoArgs(op string, comm *Comm) (*library, error) {
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	if comm.inter != nil {
		return nil, errNotIntra(op, comm)
	}
	return l, nil
}

// topoComm makes the communicator of group (world ranks, in order) with
// topology t, or nil for a rank outside group. Every rank of comm calls
// it, also one whose arguments (args) failed its checks (own, unhandled):
// it returns own, and every other rank an error naming it, rather than
// wait for it.
func (l *library) topoComm(comm *Comm, op, name string, args sameArgs, group []int, t *topology, own error) (*Comm, error) {
	c, err := l.deriveFor(comm, op, comm.Name()+"."+name, args, group, own)
	if err != nil || c == nil {
		return nil, comm.handle(err)
	}
	c.topo = t
	return c, nil
}

// checkRanks checks that every entry of ranks (what names them) is a
// rank of a communicator or graph of n ranks.
func checkRanks(op string, comm *Comm, what string, ranks []int, n int) error {
	for i, r := range ranks {
		if r < 0 || r >= n {
			return errorf(ClassRank, nil, "%s on %v: %s[%d] is %d (want a rank from 0 to %d)", op, comm, what, i, r, n-1)
		}
	}
	return nil
}

// firstRanks is comm's ranks 0 to n-1 as world ranks: the group of a
// topology that keeps the ranks' order.
func firstRanks(comm *Comm, n int) []int { return slices.Clone(comm.group[:n]) }

// moreRanks counts n further ranks in an error: "2 more ranks".
func moreRanks(n int) string {
	if n == 1 {
		return "1 more rank"
	}
	return fmt.Sprintf("%d more ranks", n)
}
