package stats

import "github.com/gompi/gompi/pmpi"

// The non-blocking collectives count at their start: the call's time
// is that of starting it, its bytes and logical messages those of the
// blocking call (coll.go), since the start commits them; the Wait that
// completes it counts as a Wait. The persistent collectives' Init calls
// count their time only, and their starts count as Start.

// begun counts a call that start starts, with the flow of its blocking
// form.
func (m *module) begun(f fn, comm *pmpi.Comm, fl flow, start func() (*pmpi.Request, error)) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := start()
	if t0 >= 0 {
		m.collective(f, t0, comm, fl)
	}
	return r, err
}

// made counts the time of a persistent call's Init, call.
func (m *module) made(f fn, comm *pmpi.Comm, call func() (*pmpi.Request, error)) (*pmpi.Request, error) {
	t0 := m.begin()
	r, err := call()
	if t0 >= 0 {
		m.end(f, t0, 0, comm, -1)
	}
	return r, err
}

func (m *module) Ibarrier(comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIbarrier, comm, flow{kind: toAll}, func() (*pmpi.Request, error) { return m.Next.Ibarrier(comm) })
}

func (m *module) Ibcast(buf []byte, count int, dt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIbcast, comm, bcastFlow(count, dt, root), func() (*pmpi.Request, error) { return m.Next.Ibcast(buf, count, dt, root, comm) })
}

func (m *module) Ireduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIreduce, comm, toRootFlow(count, dt, root), func() (*pmpi.Request, error) { return m.Next.Ireduce(send, recv, count, dt, op, root, comm) })
}

func (m *module) Iallreduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIallreduce, comm, toAllFlow(count, dt), func() (*pmpi.Request, error) { return m.Next.Iallreduce(send, recv, count, dt, op, comm) })
}

func (m *module) Igather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIgather, comm, toRootFlow(scount, sdt, root), func() (*pmpi.Request, error) { return m.Next.Igather(send, scount, sdt, recv, rcount, rdt, root, comm) })
}

func (m *module) Igatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIgatherv, comm, toRootFlow(scount, sdt, root), func() (*pmpi.Request, error) {
		return m.Next.Igatherv(send, scount, sdt, recv, counts, displs, rdt, root, comm)
	})
}

func (m *module) Iscatter(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIscatter, comm, bcastFlow(scount, sdt, root), func() (*pmpi.Request, error) {
		return m.Next.Iscatter(send, scount, sdt, recv, rcount, rdt, root, comm)
	})
}

func (m *module) Iscatterv(send []byte, counts, displs []int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIscatterv, comm, scattervFlow(counts, sdt, root), func() (*pmpi.Request, error) {
		return m.Next.Iscatterv(send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	})
}

func (m *module) Iallgather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIallgather, comm, blockFlow(send, scount, sdt, rcount, rdt), func() (*pmpi.Request, error) { return m.Next.Iallgather(send, scount, sdt, recv, rcount, rdt, comm) })
}

func (m *module) Iallgatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIallgatherv, comm, allgathervFlow(send, scount, sdt, counts, rdt, comm), func() (*pmpi.Request, error) {
		return m.Next.Iallgatherv(send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

func (m *module) Ialltoall(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIalltoall, comm, blockFlow(send, scount, sdt, rcount, rdt), func() (*pmpi.Request, error) { return m.Next.Ialltoall(send, scount, sdt, recv, rcount, rdt, comm) })
}

func (m *module) Ialltoallv(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIalltoallv, comm, alltoallvFlow(send, scounts, sdt, rcounts, rdt), func() (*pmpi.Request, error) {
		return m.Next.Ialltoallv(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}

func (m *module) IreduceScatter(send, recv []byte, counts []int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIreduceScatter, comm, byCountsFlow(counts, dt), func() (*pmpi.Request, error) { return m.Next.IreduceScatter(send, recv, counts, dt, op, comm) })
}

func (m *module) IreduceScatterBlock(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIreduceScatterBlock, comm, toAllFlow(count, dt), func() (*pmpi.Request, error) { return m.Next.IreduceScatterBlock(send, recv, count, dt, op, comm) })
}

func (m *module) Iscan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIscan, comm, scanFlow(count, dt), func() (*pmpi.Request, error) { return m.Next.Iscan(send, recv, count, dt, op, comm) })
}

func (m *module) Iexscan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.begun(fnIexscan, comm, scanFlow(count, dt), func() (*pmpi.Request, error) { return m.Next.Iexscan(send, recv, count, dt, op, comm) })
}

func (m *module) BarrierInit(comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnBarrierInit, comm, func() (*pmpi.Request, error) { return m.Next.BarrierInit(comm) })
}

func (m *module) BcastInit(buf []byte, count int, dt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnBcastInit, comm, func() (*pmpi.Request, error) { return m.Next.BcastInit(buf, count, dt, root, comm) })
}

func (m *module) ReduceInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnReduceInit, comm, func() (*pmpi.Request, error) { return m.Next.ReduceInit(send, recv, count, dt, op, root, comm) })
}

func (m *module) AllreduceInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAllreduceInit, comm, func() (*pmpi.Request, error) { return m.Next.AllreduceInit(send, recv, count, dt, op, comm) })
}

func (m *module) GatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnGatherInit, comm, func() (*pmpi.Request, error) {
		return m.Next.GatherInit(send, scount, sdt, recv, rcount, rdt, root, comm)
	})
}

func (m *module) GathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnGathervInit, comm, func() (*pmpi.Request, error) {
		return m.Next.GathervInit(send, scount, sdt, recv, counts, displs, rdt, root, comm)
	})
}

func (m *module) ScatterInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnScatterInit, comm, func() (*pmpi.Request, error) {
		return m.Next.ScatterInit(send, scount, sdt, recv, rcount, rdt, root, comm)
	})
}

func (m *module) ScattervInit(send []byte, counts, displs []int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnScattervInit, comm, func() (*pmpi.Request, error) {
		return m.Next.ScattervInit(send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	})
}

func (m *module) AllgatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAllgatherInit, comm, func() (*pmpi.Request, error) { return m.Next.AllgatherInit(send, scount, sdt, recv, rcount, rdt, comm) })
}

func (m *module) AllgathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAllgathervInit, comm, func() (*pmpi.Request, error) {
		return m.Next.AllgathervInit(send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

func (m *module) AlltoallInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAlltoallInit, comm, func() (*pmpi.Request, error) { return m.Next.AlltoallInit(send, scount, sdt, recv, rcount, rdt, comm) })
}

func (m *module) AlltoallvInit(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnAlltoallvInit, comm, func() (*pmpi.Request, error) {
		return m.Next.AlltoallvInit(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}

func (m *module) ReduceScatterInit(send, recv []byte, counts []int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnReduceScatterInit, comm, func() (*pmpi.Request, error) { return m.Next.ReduceScatterInit(send, recv, counts, dt, op, comm) })
}

func (m *module) ReduceScatterBlockInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnReduceScatterBlockInit, comm, func() (*pmpi.Request, error) { return m.Next.ReduceScatterBlockInit(send, recv, count, dt, op, comm) })
}

func (m *module) ScanInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnScanInit, comm, func() (*pmpi.Request, error) { return m.Next.ScanInit(send, recv, count, dt, op, comm) })
}

func (m *module) ExscanInit(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnExscanInit, comm, func() (*pmpi.Request, error) { return m.Next.ExscanInit(send, recv, count, dt, op, comm) })
}

func (m *module) NeighborAllgatherInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnNeighborAllgatherInit, comm, func() (*pmpi.Request, error) {
		return m.Next.NeighborAllgatherInit(send, scount, sdt, recv, rcount, rdt, comm)
	})
}

func (m *module) NeighborAllgathervInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnNeighborAllgathervInit, comm, func() (*pmpi.Request, error) {
		return m.Next.NeighborAllgathervInit(send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

func (m *module) NeighborAlltoallInit(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnNeighborAlltoallInit, comm, func() (*pmpi.Request, error) {
		return m.Next.NeighborAlltoallInit(send, scount, sdt, recv, rcount, rdt, comm)
	})
}

func (m *module) NeighborAlltoallvInit(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) (*pmpi.Request, error) {
	return m.made(fnNeighborAlltoallvInit, comm, func() (*pmpi.Request, error) {
		return m.Next.NeighborAlltoallvInit(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}
