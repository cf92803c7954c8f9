package stats

import "github.com/gompi/gompi/pmpi"

// A collective counts the bytes this rank sends in the flat logical
// pattern of the call: what its buffers contribute to the other members'
// results, whatever algorithm moves them. The root of a Bcast sends its
// buffer to every other member; every member of an Allreduce sends its
// contribution to every other; a Gather's non-roots send theirs to the
// root; a Scan's members send theirs to the members of higher rank. In
// the coll matrix every call counts as one logical message to each other
// member of the communicator, carrying that member's share (0 bytes when
// it gets none, as in a Barrier).

// flowKind is who receives what in a collective's flat pattern.
type flowKind uint8

const (
	toAll      flowKind = iota // every member sends each to every other
	fromRoot                   // the root sends each to every other member
	toRoot                     // every member but the root sends each to the root
	toHigher                   // every member sends each to the members of higher rank
	byCounts                   // every member sends counts[i]*unit to member i
	rootCounts                 // the root sends counts[i]*unit to member i
)

type flow struct {
	kind   flowKind
	root   int
	each   int64
	counts []int
	unit   int64
}

// to returns the bytes rank me sends to member i (i != me).
func (f *flow) to(me, i int) int64 {
	switch f.kind {
	case toAll:
		return f.each
	case fromRoot:
		if me == f.root {
			return f.each
		}
	case toRoot:
		if i == f.root {
			return f.each
		}
	case toHigher:
		if i > me {
			return f.each
		}
	case byCounts, rootCounts:
		if (f.kind == byCounts || me == f.root) && i < len(f.counts) {
			return int64(f.counts[i]) * f.unit
		}
	}
	return 0
}

// collective counts a collective call begun at t0 on comm.
func (m *module) collective(f fn, t0 int64, comm *pmpi.Comm, fl flow) {
	if comm == nil {
		m.count(f, t0, 0, -1).mu.Unlock()
		return
	}
	isWorld := comm == m.world
	slot := worldSlot
	var worlds []int
	if !isWorld {
		t := m.table(comm)
		if t.inter {
			// Its flows run between two groups, which the local group's
			// flow does not describe: the call counts, its bytes do not.
			m.count(f, t0, 0, t.slot).mu.Unlock()
			return
		}
		worlds, slot = t.worlds, t.slot
	}
	me, n := comm.Rank(), comm.Size()
	var total int64
	for i := range n {
		if i != me {
			total += fl.to(me, i)
		}
	}
	sh := m.count(f, t0, total, slot)
	defer sh.mu.Unlock()
	for i := range n {
		w := i
		if !isWorld {
			w = -1
			if i < len(worlds) {
				w = worlds[i]
			}
		}
		if i != me && w >= 0 && w < len(sh.coll) {
			sh.coll[w].msgs++
			sh.coll[w].bytes += fl.to(me, i)
		}
	}
}

func size(count int, dt pmpi.Datatype) int64 { return int64(count) * int64(dt.Size()) }

func (m *module) Barrier(comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Barrier(comm)
	if t0 >= 0 {
		m.collective(fnBarrier, t0, comm, flow{kind: toAll})
	}
	return err
}

func (m *module) Bcast(buf []byte, count int, dt pmpi.Datatype, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Bcast(buf, count, dt, root, comm)
	if t0 >= 0 {
		m.collective(fnBcast, t0, comm, flow{kind: fromRoot, root: root, each: size(count, dt)})
	}
	return err
}

func (m *module) Reduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Reduce(send, recv, count, dt, op, root, comm)
	if t0 >= 0 {
		m.collective(fnReduce, t0, comm, flow{kind: toRoot, root: root, each: size(count, dt)})
	}
	return err
}

func (m *module) Allreduce(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Allreduce(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnAllreduce, t0, comm, flow{kind: toAll, each: size(count, dt)})
	}
	return err
}

func (m *module) Gather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Gather(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnGather, t0, comm, flow{kind: toRoot, root: root, each: size(scount, sdt)})
	}
	return err
}

func (m *module) Gatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Gatherv(send, scount, sdt, recv, counts, displs, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnGatherv, t0, comm, flow{kind: toRoot, root: root, each: size(scount, sdt)})
	}
	return err
}

func (m *module) Scatter(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Scatter(send, scount, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnScatter, t0, comm, flow{kind: fromRoot, root: root, each: size(scount, sdt)})
	}
	return err
}

func (m *module) Scatterv(send []byte, counts, displs []int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, root int, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Scatterv(send, counts, displs, sdt, recv, rcount, rdt, root, comm)
	if t0 >= 0 {
		m.collective(fnScatterv, t0, comm, flow{kind: rootCounts, root: root, counts: counts, unit: int64(sdt.Size())})
	}
	return err
}

// The gathers to all and the all-to-alls in place take this rank's part
// from the receive buffer, with the receive's count and type.

func (m *module) Allgather(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Allgather(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		each := size(scount, sdt)
		if pmpi.IsInPlace(send) {
			each = size(rcount, rdt)
		}
		m.collective(fnAllgather, t0, comm, flow{kind: toAll, each: each})
	}
	return err
}

func (m *module) Allgatherv(send []byte, scount int, sdt pmpi.Datatype, recv []byte, counts, displs []int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Allgatherv(send, scount, sdt, recv, counts, displs, rdt, comm)
	if t0 >= 0 {
		each := size(scount, sdt)
		if comm != nil && pmpi.IsInPlace(send) && comm.Rank() < len(counts) {
			each = size(counts[comm.Rank()], rdt)
		}
		m.collective(fnAllgatherv, t0, comm, flow{kind: toAll, each: each})
	}
	return err
}

func (m *module) Alltoall(send []byte, scount int, sdt pmpi.Datatype, recv []byte, rcount int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Alltoall(send, scount, sdt, recv, rcount, rdt, comm)
	if t0 >= 0 {
		each := size(scount, sdt)
		if pmpi.IsInPlace(send) {
			each = size(rcount, rdt)
		}
		m.collective(fnAlltoall, t0, comm, flow{kind: toAll, each: each})
	}
	return err
}

func (m *module) Alltoallv(send []byte, scounts, sdispls []int, sdt pmpi.Datatype, recv []byte, rcounts, rdispls []int, rdt pmpi.Datatype, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Alltoallv(send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	if t0 >= 0 {
		fl := flow{kind: byCounts, counts: scounts, unit: int64(sdt.Size())}
		if pmpi.IsInPlace(send) {
			fl.counts, fl.unit = rcounts, int64(rdt.Size())
		}
		m.collective(fnAlltoallv, t0, comm, fl)
	}
	return err
}

func (m *module) ReduceScatter(send, recv []byte, counts []int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.ReduceScatter(send, recv, counts, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnReduceScatter, t0, comm, flow{kind: byCounts, counts: counts, unit: int64(dt.Size())})
	}
	return err
}

func (m *module) ReduceScatterBlock(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.ReduceScatterBlock(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnReduceScatterBlock, t0, comm, flow{kind: toAll, each: size(count, dt)})
	}
	return err
}

func (m *module) Scan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Scan(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnScan, t0, comm, flow{kind: toHigher, each: size(count, dt)})
	}
	return err
}

func (m *module) Exscan(send, recv []byte, count int, dt pmpi.Datatype, op pmpi.Op, comm *pmpi.Comm) error {
	t0 := m.begin()
	err := m.Next.Exscan(send, recv, count, dt, op, comm)
	if t0 >= 0 {
		m.collective(fnExscan, t0, comm, flow{kind: toHigher, each: size(count, dt)})
	}
	return err
}
