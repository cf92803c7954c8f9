package pmpi

// The non-blocking and persistent forms of the collectives: the same
// arguments as the blocking calls, checked at the call (nbc.go runs them).

// Ibarrier starts Barrier and returns its request.
func (*realAPI) Ibarrier(comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return barrierCall(s, comm) })
}

// Ibcast starts Bcast and returns its request.
func (*realAPI) Ibcast(buf []byte, count int, dt Datatype, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return bcastCall(s, buf, count, dt, root, comm) })
}

// Ireduce starts Reduce and returns its request.
func (*realAPI) Ireduce(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return reduceCall(s, send, recv, count, dt, op, root, comm) })
}

// Iallreduce starts Allreduce and returns its request.
func (*realAPI) Iallreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return allreduceCall(s, send, recv, count, dt, op, comm) })
}

// Igather starts Gather and returns its request.
func (*realAPI) Igather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return gatherCall(s, send, scount, sdt, recv, rcount, rdt, root, comm) })
}

// Igatherv starts Gatherv and returns its request.
func (*realAPI) Igatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return gathervCall(s, send, scount, sdt, recv, counts, displs, rdt, root, comm)
	})
}

// Iscatter starts Scatter and returns its request.
func (*realAPI) Iscatter(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return scatterCall(s, send, scount, sdt, recv, rcount, rdt, root, comm) })
}

// Iscatterv starts Scatterv and returns its request.
func (*realAPI) Iscatterv(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return scattervCall(s, send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	})
}

// Iallgather starts Allgather and returns its request.
func (*realAPI) Iallgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return allgatherCall(s, send, scount, sdt, recv, rcount, rdt, comm) })
}

// Iallgatherv starts Allgatherv and returns its request.
func (*realAPI) Iallgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return allgathervCall(s, send, scount, sdt, recv, counts, displs, rdt, comm) })
}

// Ialltoall starts Alltoall and returns its request.
func (*realAPI) Ialltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return alltoallCall(s, send, scount, sdt, recv, rcount, rdt, comm) })
}

// Ialltoallv starts Alltoallv and returns its request.
func (*realAPI) Ialltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return alltoallvCall(s, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}

// IreduceScatter starts ReduceScatter and returns its request.
func (*realAPI) IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return reduceScatterCall(s, send, recv, counts, dt, op, comm) })
}

// IreduceScatterBlock starts ReduceScatterBlock and returns its request.
func (*realAPI) IreduceScatterBlock(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return reduceScatterBlockCall(s, send, recv, count, dt, op, comm) })
}

// Iscan starts Scan and returns its request.
func (*realAPI) Iscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return scanCall(s, send, recv, count, dt, op, comm) })
}

// Iexscan starts Exscan and returns its request.
func (*realAPI) Iexscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error { return exscanCall(s, send, recv, count, dt, op, comm) })
}

// BarrierInit makes a persistent Barrier: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) BarrierInit(comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return barrierCall(s, comm) })
}

// BcastInit makes a persistent Bcast: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) BcastInit(buf []byte, count int, dt Datatype, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return bcastCall(s, buf, count, dt, root, comm) })
}

// ReduceInit makes a persistent Reduce: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ReduceInit(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return reduceCall(s, send, recv, count, dt, op, root, comm) })
}

// AllreduceInit makes a persistent Allreduce: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) AllreduceInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return allreduceCall(s, send, recv, count, dt, op, comm) })
}

// GatherInit makes a persistent Gather: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) GatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return gatherCall(s, send, scount, sdt, recv, rcount, rdt, root, comm) })
}

// GathervInit makes a persistent Gatherv: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) GathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return gathervCall(s, send, scount, sdt, recv, counts, displs, rdt, root, comm)
	})
}

// ScatterInit makes a persistent Scatter: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ScatterInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return scatterCall(s, send, scount, sdt, recv, rcount, rdt, root, comm) })
}

// ScattervInit makes a persistent Scatterv: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ScattervInit(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return scattervCall(s, send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	})
}

// AllgatherInit makes a persistent Allgather: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) AllgatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return allgatherCall(s, send, scount, sdt, recv, rcount, rdt, comm) })
}

// AllgathervInit makes a persistent Allgatherv: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) AllgathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return allgathervCall(s, send, scount, sdt, recv, counts, displs, rdt, comm) })
}

// AlltoallInit makes a persistent Alltoall: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) AlltoallInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return alltoallCall(s, send, scount, sdt, recv, rcount, rdt, comm) })
}

// AlltoallvInit makes a persistent Alltoallv: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) AlltoallvInit(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return alltoallvCall(s, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}

// ReduceScatterInit makes a persistent ReduceScatter: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return reduceScatterCall(s, send, recv, counts, dt, op, comm) })
}

// ReduceScatterBlockInit makes a persistent ReduceScatterBlock: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ReduceScatterBlockInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return reduceScatterBlockCall(s, send, recv, count, dt, op, comm) })
}

// ScanInit makes a persistent Scan: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ScanInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return scanCall(s, send, recv, count, dt, op, comm) })
}

// ExscanInit makes a persistent Exscan: inactive until Start, run again at each
// Start with what the buffers hold then, until RequestFree.
func (*realAPI) ExscanInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error { return exscanCall(s, send, recv, count, dt, op, comm) })
}
