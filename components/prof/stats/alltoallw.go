package stats

import "github.com/gompi/gompi/pmpi"

// The w-forms count each block's bytes, its count times its own
// datatype's size, to the rank or destination it goes to; their
// non-blocking forms count at the start and their Init calls their time
// only, as nbc.go says.

// blockBytes is the bytes of each block: counts[i] elements of types[i].
func blockBytes(counts []int, types []pmpi.Datatype) []int {
	b := make([]int, len(counts))
	for i, c := range counts {
		if i < len(types) && c > 0 {
			b[i] = c * types[i].Size()
		}
	}
	return b
}

// alltoallwFlow: block i to rank i; in place, the receive blocks are
// what is sent.
func alltoallwFlow(send []byte, scounts []int, stypes []pmpi.Datatype, rcounts []int, rtypes []pmpi.Datatype) flow {
	if pmpi.IsInPlace(send) {
		scounts, stypes = rcounts, rtypes
	}
	return flow{kind: byCounts, counts: blockBytes(scounts, stypes), unit: 1}
}

func (m *module) Alltoallw(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	if t0 >= 0 {
		m.collective(fnAlltoallw, t0, comm, alltoallwFlow(send, scounts, stypes, rcounts, rtypes))
	}
	return err
}

func (m *module) Ialltoallw(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIalltoallw, comm, alltoallwFlow(send, scounts, stypes, rcounts, rtypes), func() (*pmpi.Request, error) {
		return m.Next.Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

func (m *module) AlltoallwInit(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAlltoallwInit, comm, func() (*pmpi.Request, error) {
		return m.Next.AlltoallwInit(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

func (m *module) NeighborAlltoallw(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.NeighborAlltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	if t0 >= 0 {
		m.collective(fnNeighborAlltoallw, t0, comm, neighborFlow(comm, 0, blockBytes(scounts, stypes), 1))
	}
	return err
}

func (m *module) IneighborAlltoallw(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIneighborAlltoallw, comm, neighborFlow(comm, 0, blockBytes(scounts, stypes), 1), func() (*pmpi.Request, error) {
		return m.Next.IneighborAlltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}

func (m *module) NeighborAlltoallwInit(send []byte, scounts, sdispls []int, stypes []pmpi.Datatype, recv []byte, rcounts, rdispls []int, rtypes []pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnNeighborAlltoallwInit, comm, func() (*pmpi.Request, error) {
		return m.Next.NeighborAlltoallwInit(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm)
	})
}
