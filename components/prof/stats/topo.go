package stats

import "github.com/gompi/gompi/pmpi"

// The topology constructors count their time on the communicator they
// are made from, as CommDup and CommSplit do.

// making counts a call that makes a communicator from comm.
func (m *module) making(f fn, comm *pmpi.Comm, call func() (*pmpi.Comm, error)) (*pmpi.Comm, error) {
	t0 := m.begin()
	c, err := call()
	if t0 >= 0 {
		m.end(f, t0, 0, comm, -1)
	}
	return c, err
}

func (m *module) CartCreate(comm *pmpi.Comm, dims []int, periods []bool, reorder bool) (*pmpi.Comm, error) {
	return m.making(fnCartCreate, comm, func() (*pmpi.Comm, error) { return m.Next.CartCreate(comm, dims, periods, reorder) })
}

func (m *module) CartSub(comm *pmpi.Comm, remain []bool) (*pmpi.Comm, error) {
	return m.making(fnCartSub, comm, func() (*pmpi.Comm, error) { return m.Next.CartSub(comm, remain) })
}

func (m *module) GraphCreate(comm *pmpi.Comm, index, edges []int, reorder bool) (*pmpi.Comm, error) {
	return m.making(fnGraphCreate, comm, func() (*pmpi.Comm, error) { return m.Next.GraphCreate(comm, index, edges, reorder) })
}

func (m *module) DistGraphCreate(comm *pmpi.Comm, sources, degrees, dests, weights []int, reorder bool) (*pmpi.Comm, error) {
	return m.making(fnDistGraphCreate, comm, func() (*pmpi.Comm, error) {
		return m.Next.DistGraphCreate(comm, sources, degrees, dests, weights, reorder)
	})
}

func (m *module) DistGraphCreateAdjacent(comm *pmpi.Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*pmpi.Comm, error) {
	return m.making(fnDistGraphCreateAdjacent, comm, func() (*pmpi.Comm, error) {
		return m.Next.DistGraphCreateAdjacent(comm, sources, sourceWeights, dests, destWeights, reorder)
	})
}
