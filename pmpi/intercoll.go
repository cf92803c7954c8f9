package pmpi

import (
	"encoding/binary"
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// Root, passed as the root of a rooted collective on an
// intercommunicator, marks the root itself (MPI_ROOT); the other ranks of
// its group pass ProcNull, and the ranks of the other group the root's
// rank in its group.
const Root = -3

// The collectives on an intercommunicator, as MPI defines them. pmpi runs
// them itself rather than through the coll framework: blocks go straight
// between the groups, a message for each pair that exchanges one, and
// what needs the whole group (a reduction, a barrier, what a group's rank
// 0 received) goes over the group's bridge, an intracommunicator of its
// own, with the coll components' algorithms. Each call checks its
// arguments and returns what runs it on an interRun: the blocking call
// runs it at once on the intercommunicator's collective context and the
// bridge's; a non-blocking one in a goroutine on contexts of its own.

// interRun is where one intercommunicator collective runs.
type interRun struct {
	x  collComm     // messages between the groups
	b  *Comm        // this group's bridge
	bm *coll.Module // the bridge's collectives for this call
	bc coll.Comm    // the bridge's context for this call
	// concurrent: bm is the bridge's Concurrent module (a non-blocking
	// call), which names its providers apart.
	concurrent bool
}

// served names the bridge's component that served collective ahead of
// err.
func (r interRun) served(collective string, err error) error {
	t := r.b.colls
	name := t.Provider(collective)
	if r.concurrent {
		name = t.ConcurrentProvider(collective)
	}
	return fmt.Errorf("coll %s on the local group: %w", name, err)
}

// across gives every rank of this group what the other group's rank 0
// passed to across, in exchange for what this group's rank 0 passed: the
// two swap, then each broadcasts over its bridge. An error at rank 0
// reaches every rank of the group, so that none waits for the broadcast.
func (r interRun) across(mine []byte) ([]byte, error) {
	var (
		theirs []byte
		err    error
	)
	if r.b.rank == 0 {
		c := r.x.c
		theirs, err = c.lib.swapWith(r.x.ctx, c.group[0], tagInterLeaders, mine)
	}
	if r.bm.Bcast == nil {
		return nil, errorf(ClassIntern, coll.ErrNoProvider, "the local group %v: bcast", r.b)
	}
	return fromLeaderOn(r.b, func(buf []byte) error {
		if e := r.bm.Bcast(r.bc, buf, 0); e != nil {
			return r.served("bcast", e)
		}
		return nil
	}, 0, theirs, err)
}

// fromLeaderOn broadcasts data, or the error err, from rank leader of c
// to every rank of c with bcast, and returns them.
func fromLeaderOn(c *Comm, bcast func([]byte) error, leader int, data []byte, err error) ([]byte, error) {
	var head [8]byte
	me := c.rank == leader
	if me {
		payload, class := data, ErrorClass(0)
		if err != nil {
			payload, class = []byte(err.Error()), classOf(err)
		}
		binary.LittleEndian.PutUint32(head[:], uint32(class))
		binary.LittleEndian.PutUint32(head[4:], uint32(len(payload)))
		data = payload
	}
	if e := bcast(head[:]); e != nil {
		return nil, e
	}
	class, n := ErrorClass(binary.LittleEndian.Uint32(head[:])), int(binary.LittleEndian.Uint32(head[4:]))
	if !me {
		data = make([]byte, n)
	}
	if n > 0 {
		if e := bcast(data); e != nil {
			return nil, e
		}
	}
	switch {
	case me && err != nil:
		return nil, err
	case class != 0:
		return nil, errorf(class, nil, "the group's leader, rank %d of %v, failed: %s", leader, c, data)
	}
	return data, nil
}

// reduce reduces send with o over this group into the returned buffer of
// size bytes at the group's rank 0 (nil elsewhere).
func (r interRun) reduce(send []byte, size int, o coll.Op) ([]byte, error) {
	if r.bm.Reduce == nil {
		return nil, errorf(ClassIntern, coll.ErrNoProvider, "the local group %v: reduce", r.b)
	}
	var out []byte
	if r.b.rank == 0 {
		out = make([]byte, size)
	}
	if err := r.bm.Reduce(r.bc, send, out, o, 0); err != nil {
		return nil, r.served("reduce", err)
	}
	return out, nil
}

// interPrepare checks a call's arguments at this rank and returns what
// runs it.
type interPrepare func(k *collCall) (func(interRun) error, error)

// interColl runs the collective name names on the intercommunicator comm:
// prepare checks the arguments, then the call runs at once (s nil) or
// starts as s says.
func interColl(s *collStart, name *collName, comm *Comm, prepare interPrepare) error {
	op := s.callName(name)
	if _, err := interArgs(op, comm); err != nil {
		return err
	}
	k := collCall{op: op, comm: comm}
	run, err := prepare(&k)
	if err != nil {
		if k.convs != nil {
			k.unpackAll(false)
		}
		return err
	}
	if s != nil {
		return k.launchInter(s, run)
	}
	b := comm.inter.bridge
	return k.finish(run(interRun{x: collComm{c: comm, ctx: comm.context + 1}, b: b, bm: &b.colls.Module, bc: b.cc}))
}

// finish ends an intercommunicator collective: unpacks what it received
// into derived types and reports err in the call's terms.
func (k *collCall) finish(err error) error {
	if k.convs != nil {
		k.unpackAll(err == nil)
	}
	if err == nil {
		return nil
	}
	return k.comm.handle(errorf(classOf(err), err, "%s on %v", k.op, k.comm))
}

// nothing runs a call at a rank that takes no part in it (beside a root).
func nothing(interRun) error { return nil }

// interBarrier returns once every rank of both groups has called it: each
// group's rank 0 knows its group has entered after the bridge's barrier,
// swaps that news with the other's, and tells the group.
func interBarrier(s *collStart, comm *Comm) error {
	return interColl(s, &nameBarrier, comm, func(k *collCall) (func(interRun) error, error) {
		return func(r interRun) error {
			if r.bm.Barrier == nil {
				return errorf(ClassIntern, coll.ErrNoProvider, "the local group %v: barrier", r.b)
			}
			if err := r.bm.Barrier(r.bc); err != nil {
				return r.served("barrier", err)
			}
			_, err := r.across(nil)
			return err
		}, nil
	})
}

// interBcast sends count elements of dt from the root, in one group, to
// every rank of the other: the root sends to the other group's rank 0,
// which broadcasts over its bridge.
func interBcast(s *collStart, buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	return interColl(s, &nameBcast, comm, func(k *collCall) (func(interRun) error, error) {
		role, err := k.interRoot(root)
		if err != nil || role == besideRoot {
			return nothing, err
		}
		data, err := k.data("", buf, count, dt)
		if err != nil {
			return nil, err
		}
		if role == atRoot {
			return func(r interRun) error { return r.x.Send(data, 0, tagInterBcast) }, nil
		}
		return func(r interRun) error {
			var recvErr error
			if r.b.rank == 0 {
				recvErr = r.x.Recv(data, root, tagInterBcast)
			}
			// The bridge's broadcast runs whatever rank 0 received, so that
			// no rank of the group waits for a broadcast that never comes.
			if r.bm.Bcast == nil {
				return errorf(ClassIntern, coll.ErrNoProvider, "the local group %v: bcast", r.b)
			}
			if err := r.bm.Bcast(r.bc, data, 0); err != nil {
				return r.served("bcast", err)
			}
			return recvErr
		}, nil
	})
}

// interAllreduce leaves in recv at every rank the reduction, with op, of
// the send data of every rank of the other group: each group reduces its
// own to its rank 0, which swaps the result with the other's and
// broadcasts what it got.
func interAllreduce(s *collStart, send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error {
	return interColl(s, &nameAllreduce, comm, func(k *collCall) (func(interRun) error, error) {
		if err := k.notInPlace(send); err != nil {
			return nil, err
		}
		o, sd, rd, err := k.reduction(send, recv, count, dt, op, true)
		if err != nil {
			return nil, err
		}
		return func(r interRun) error {
			mine, err := r.reduce(sd, len(rd), o)
			if err != nil {
				return err
			}
			theirs, err := r.across(mine)
			if err == nil && len(theirs) != len(rd) {
				err = errorf(ClassCount, nil, "the remote group reduced %d bytes where this one reduced %d: the groups' counts or datatypes disagree", len(theirs), len(rd))
			}
			if err == nil {
				copy(rd, theirs)
			}
			return err
		}, nil
	})
}

// errInterColl is the error of a collective call on an intercommunicator
// that MPI does not define there: the scans.
func errInterColl(op string, comm *Comm) error {
	return comm.handle(errorf(ClassComm, nil, "%s on %v: MPI defines no %s on an intercommunicator", op, comm, op))
}
