package stats

import "github.com/gompi/gompi/pmpi"

// The neighbourhood collectives count each block this rank sends to a
// destination of the communicator's topology, in its collective matrix
// too; their non-blocking forms count at the start, as nbc.go says.

// neighborFlow: each bytes, or counts[k]*unit, to destination k of
// comm's topology.
func neighborFlow(comm *pmpi.Comm, each int64, counts []int, unit int64) flow {
	_, dests := comm.Neighbors()
	return flow{kind: toDests, each: each, counts: counts, unit: unit, dests: dests}
}

func (m *module) NeighborAllgather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.NeighborAllgather(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.collective(fnNeighborAllgather, t0, comm, neighborFlow(comm, size(scount, sdt), nil, 0))
	}
	return err
}

func (m *module) IneighborAllgather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIneighborAllgather, comm, neighborFlow(comm, size(scount, sdt), nil, 0), func() (*pmpi.Request, error) {
		return m.Next.IneighborAllgather(send, scount, sdt, recv, rcount, rdt, comm)
	})
}

func (m *module) NeighborAllgatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.NeighborAllgatherv(send, scount, sdt, recv, counts, displs, rdt, comm)
	if t0 >= 0 {
		m.collective(fnNeighborAllgatherv, t0, comm, neighborFlow(comm, size(scount, sdt), nil, 0))
	}
	return err
}

func (m *module) IneighborAllgatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIneighborAllgatherv, comm, neighborFlow(comm, size(scount, sdt), nil, 0), func() (*pmpi.Request, error) {
		return m.Next.IneighborAllgatherv(send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

func (m *module) NeighborAlltoall(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.NeighborAlltoall(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.collective(fnNeighborAlltoall, t0, comm, neighborFlow(comm, size(scount, sdt), nil, 0))
	}
	return err
}

func (m *module) IneighborAlltoall(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIneighborAlltoall, comm, neighborFlow(comm, size(scount, sdt), nil, 0), func() (*pmpi.Request, error) {
		return m.Next.IneighborAlltoall(send, scount, sdt, recv, rcount, rdt, comm)
	})
}

func (m *module) NeighborAlltoallv(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.NeighborAlltoallv(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	if t0 >= 0 {
		m.collective(fnNeighborAlltoallv, t0, comm, neighborFlow(comm, 0, scounts, int64(sdt.Size())))
	}
	return err
}

func (m *module) IneighborAlltoallv(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIneighborAlltoallv, comm, neighborFlow(comm, 0, scounts, int64(sdt.Size())), func() (*pmpi.Request, error) {
		return m.Next.IneighborAlltoallv(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}
