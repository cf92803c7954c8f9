package stats

import "github.com/gompi/gompi/pmpi"

// The non-blocking collectives count at their start: the call's time
// is that of starting it, its bytes and logical messages those of the
// blocking call (coll.go), since the start commits them; the Wait that
// completes it counts as a Wait. The persistent collectives' Init calls
// count their time only, and their starts count as Start.

func (m *module) Ibarrier(comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ibarrier(comm)
	if t0 >= 0 {
		m.collective(fnIbarrier, t0, comm, flow{kind: toAll})
	}
	return r, err
}

func (m *module) Ibcast(buf []byte, count int, dt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ibcast(buf, count, dt, root, comm)
	if t0 >= 0 {
		m.collective(fnIbcast, t0, comm, bcastFlow(count, dt, root))
	}
	return r, err
}

func (m *module) Ireduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ireduce(send, recv, count, dt, op, root, comm)
	if t0 >= 0 {
		m.collective(fnIreduce, t0, comm, toRootFlow(count, dt, root))
	}
	return r, err
}

func (m *module) Iallreduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iallreduce(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnIallreduce, t0, comm, toAllFlow(count, dt))
	}
	return r, err
}

func (m *module) Igather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Igather(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnIgather, t0, comm, toRootFlow(scount, sdt, root))
	}
	return r, err
}

func (m *module) Igatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Igatherv(send, scount, sdt, recv, counts, displs, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnIgatherv, t0, comm, toRootFlow(scount, sdt, root))
	}
	return r, err
}

func (m *module) Iscatter(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iscatter(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnIscatter, t0, comm, bcastFlow(scount, sdt, root))
	}
	return r, err
}

func (m *module) Iscatterv(send []byte, counts, displs []int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iscatterv(send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnIscatterv, t0, comm, scattervFlow(counts, sdt, root))
	}
	return r, err
}

func (m *module) Iallgather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iallgather(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.collective(fnIallgather, t0, comm, blockFlow(send, scount, sdt, rcount, rdt))
	}
	return r, err
}

func (m *module) Iallgatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iallgatherv(send, scount, sdt, recv, counts, displs, rdt, comm)
	if t0 >= 0 {
		m.collective(fnIallgatherv, t0, comm, allgathervFlow(send, scount, sdt, counts, rdt, comm))
	}
	return r, err
}

func (m *module) Ialltoall(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ialltoall(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.collective(fnIalltoall, t0, comm, blockFlow(send, scount, sdt, rcount, rdt))
	}
	return r, err
}

func (m *module) Ialltoallv(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Ialltoallv(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	if t0 >= 0 {
		m.collective(fnIalltoallv, t0, comm, alltoallvFlow(send, scounts, sdt, rcounts, rdt))
	}
	return r, err
}

func (m *module) IreduceScatter(send, recv []byte, counts []int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.IreduceScatter(send, recv, counts, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnIreduceScatter, t0, comm, byCountsFlow(counts, dt))
	}
	return r, err
}

func (m *module) IreduceScatterBlock(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.IreduceScatterBlock(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnIreduceScatterBlock, t0, comm, toAllFlow(count, dt))
	}
	return r, err
}

func (m *module) Iscan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iscan(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnIscan, t0, comm, scanFlow(count, dt))
	}
	return r, err
}

func (m *module) Iexscan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.Iexscan(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnIexscan, t0, comm, scanFlow(count, dt))
	}
	return r, err
}

func (m *module) BarrierInit(comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.BarrierInit(comm)
	if t0 >= 0 {
		m.end(fnBarrierInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) BcastInit(buf []byte, count int, dt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.BcastInit(buf, count, dt, root, comm)
	if t0 >= 0 {
		m.end(fnBcastInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ReduceInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ReduceInit(send, recv, count, dt, op, root, comm)
	if t0 >= 0 {
		m.end(fnReduceInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) AllreduceInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.AllreduceInit(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.end(fnAllreduceInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) GatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.GatherInit(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.end(fnGatherInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) GathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.GathervInit(send, scount, sdt, recv, counts, displs, rdt, root, comm)
	if t0 >= 0 {
		m.end(fnGathervInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ScatterInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ScatterInit(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.end(fnScatterInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ScattervInit(send []byte, counts, displs []int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ScattervInit(send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.end(fnScattervInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) AllgatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.AllgatherInit(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.end(fnAllgatherInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) AllgathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.AllgathervInit(send, scount, sdt, recv, counts, displs, rdt, comm)
	if t0 >= 0 {
		m.end(fnAllgathervInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) AlltoallInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.AlltoallInit(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.end(fnAlltoallInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) AlltoallvInit(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.AlltoallvInit(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	if t0 >= 0 {
		m.end(fnAlltoallvInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ReduceScatterInit(send, recv []byte, counts []int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ReduceScatterInit(send, recv, counts, dt, op, comm)
	if t0 >= 0 {
		m.end(fnReduceScatterInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ReduceScatterBlockInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ReduceScatterBlockInit(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.end(fnReduceScatterBlockInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ScanInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ScanInit(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.end(fnScanInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) ExscanInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.ExscanInit(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.end(fnExscanInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) NeighborAllgatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.NeighborAllgatherInit(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.end(fnNeighborAllgatherInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) NeighborAllgathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.NeighborAllgathervInit(send, scount, sdt, recv, counts, displs, rdt, comm)
	if t0 >= 0 {
		m.end(fnNeighborAllgathervInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) NeighborAlltoallInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.NeighborAlltoallInit(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		m.end(fnNeighborAlltoallInit, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) NeighborAlltoallvInit(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := m.Next.NeighborAlltoallvInit(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	if t0 >= 0 {
		m.end(fnNeighborAlltoallvInit, t0, 0, comm, -1)
	}
	return r, err
}
