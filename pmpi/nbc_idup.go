package pmpi

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// Non-blocking duplication (MPI_Comm_idup, MPI_Comm_idup_with_info). The
// call builds at once what each rank knows alone: the new communicator's
// group, name, error handler, topology, hints, and the attributes the copy
// callbacks return, run in the caller as Dup runs them, so that the copy
// is of comm as it is at the call. Only the context needs the other
// ranks: it is agreed as CommDup agrees it, in a goroutine, by allreduces
// on a slot context of comm's non-blocking collectives (nbc.go), so that
// it neither waits for nor mixes with the collectives outstanding on
// comm. The request completes when the communicator is ready; until then
// the communicator may not be used, as MPI says. An intercommunicator's
// copy agrees its context over both groups and its bridge's within each,
// as CommDup's does, on the slot's context between the groups and the
// bridge's context of the same slot, as a non-blocking collective there
// runs (intercoll_nbc.go).

// CommIdup starts duplicating comm (MPI_Comm_idup) and returns the new
// communicator, usable once the request completes, and the request. The
// new communicator carries comm's hints over.
func (*realAPI) CommIdup(comm *Comm) (*Comm, *Request, error) {
	return idup("comm idup", comm, false, nil)
}

// CommIdupWithInfo is CommIdup whose new communicator takes its hints
// from info instead of from comm (MPI_Comm_idup_with_info); a nil info
// (MPI_INFO_NULL) gives it none.
func (*realAPI) CommIdupWithInfo(comm *Comm, info *Info) (*Comm, *Request, error) {
	return idup("comm idup with info", comm, true, info)
}

func idup(op string, comm *Comm, withInfo bool, info *Info) (*Comm, *Request, error) {
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, nil, err
	}
	within, ctx := comm, comm.context // the communicator whose collectives agree
	if comm.inter != nil {
		within = comm.inter.bridge
		ctx = max(ctx, within.context)
	}
	m := within.colls.Concurrent()
	if m.Allreduce == nil || (comm.inter != nil && m.Bcast == nil) {
		return nil, nil, comm.handle(errorf(ClassIntern, coll.ErrNoProvider,
			"%s on %v: no coll component that can run calls side by side (basic, self, tuned) provides allreduce and bcast (check the coll parameter)", op, comm))
	}
	if ctx >= nbcContexts {
		return nil, nil, comm.handle(errorf(ClassComm, nil,
			"%s on %v: its context id %d is not below %d, the most non-blocking collectives can tell apart (too many communicators alive)",
			op, comm, ctx, nbcContexts))
	}
	var hints map[string]string
	if withInfo {
		if hints, err = hintsOf(op, comm, info); err != nil {
			return nil, nil, comm.handle(err)
		}
	}

	c := pendingComm(l, comm)
	if comm.inter != nil {
		c = pendingInter(l, comm)
	}
	if withInfo {
		c.ext.hints.vals = hints
	} else {
		c.ext.hints.copyFrom(&comm.ext.hints)
	}
	j := &idupJob{l: l, op: op, parent: comm, c: c, m: m, copyErr: copyAttrs(op, comm, c)}
	// The window as the blocking agreements on comm left it, alike on
	// every member at this call; the agreement, not in their order,
	// leaves it alone.
	j.window.Store(comm.ctxWindow.Load())
	// Until it is complete, c counts as freed, so that a call that uses
	// it too soon fails rather than reach a context not its own. The
	// delete callbacks of a failed copy ran before, on a c they may query.
	c.idup.Store(idupPending)
	c.freed.Store(true)
	j.slot = comm.nbc.takeSlot(l.engine)
	r := l.newRequest(comm, Byte, op, ProcNull, AnyTag, false)
	r.pml = l.engine.StartGeneral(&r.pmlStore)
	if r.ext == nil {
		r.ext = &requestExt{}
	}
	r.kind, r.ext.idup = reqIdup, j
	j.p = r.pml
	if runtime.GOMAXPROCS(0) == 1 {
		// As a small non-blocking collective's (nbc.go): the Wait that
		// mostly follows runs the agreement itself, with no goroutine.
		j.deferral = j
		l.engine.Defer(&j.deferral)
	} else {
		j.RunDeferred()
	}
	return c, r, nil
}

// RunDeferred starts the goroutine that agrees the context, unless a
// Wait has run the agreement already.
func (j *idupJob) RunDeferred() {
	if j.claimed.Load() {
		return
	}
	j.l.engine.AsideStarted() // waiters and Tests yield to it
	go func() {
		j.claim()
		j.l.engine.AsideEnded()
	}()
}

// running reports whether a goroutine or a Wait runs the agreement.
func (j *idupJob) running() bool { return j.claimed.Load() }

// claim runs the agreement here unless another goroutine has begun it:
// the goroutine RunDeferred starts, or a Wait on the request.
func (j *idupJob) claim() {
	if j.claimed.CompareAndSwap(false, true) {
		j.run()
	}
}

// pendingComm makes the communicator a Dup of comm gives, but for its
// context and collectives, which the agreement sets. It is in no table
// until then.
func pendingComm(l *library, comm *Comm) *Comm {
	c := buildComm(l, comm.Name()+".dup", 0, slices.Clone(comm.group))
	c.errh.Store(comm.errh.Load())
	c.scope = comm.scope
	c.topo = comm.topo // MPI: a duplicate keeps the topology
	return c
}

// pendingInter is pendingComm for an intercommunicator: the same groups,
// without its contexts and bridge.
func pendingInter(l *library, comm *Comm) *Comm {
	c := &Comm{group: slices.Clone(comm.group), ranks: make(map[int]int, len(comm.group)), rank: comm.rank, lib: l,
		inter: &interPart{local: slices.Clone(comm.inter.local)}, scope: comm.scope}
	for i, w := range c.group {
		c.ranks[w] = i
	}
	name := comm.Name() + ".dup"
	c.name.Store(&name)
	c.errh.Store(comm.errh.Load())
	return c
}

// The states of a communicator that CommIdup made, while it is not
// usable (Comm.idup).
const (
	idupPending = 1 + iota
	idupFailed
)

// idupJob is one CommIdup under way.
type idupJob struct {
	l      *library
	op     string
	parent *Comm
	c      *Comm        // the new communicator
	m      *coll.Module // the collectives that run side by side of parent (of its bridge, for an intercommunicator)
	slot   int          // parent's non-blocking slot the agreement runs on
	p      *pml.Request
	// copyErr is a copy callback's failure at the call: the agreement
	// still runs, since the other ranks take part in it, and the request
	// then fails with it.
	copyErr error
	// claimed: a goroutine or a Wait runs the agreement.
	claimed atomic.Bool
	// window is where the agreement looks first (agreeInWindow).
	window atomic.Uint32
	// deferral is the job itself, for the engine to hold (pml.Engine.Defer).
	deferral pml.Deferred
}

// run agrees the context, completes the communicator and its request.
// A failure deletes the attributes the communicator got, which no one
// can reach any more.
func (j *idupJob) run() {
	err := j.finish()
	j.parent.nbc.release(j.slot)
	var st pml.Status
	if err != nil {
		if j.copyErr == nil {
			err = errors.Join(err, j.c.ext.attrs.clear(j.c.deleter(j.op)))
		}
		st.Err = &collFailed{err}
		j.c.idup.Store(idupFailed)
	} else {
		j.c.idup.Store(0)
		j.c.freed.Store(false) // after the fields it publishes
	}
	j.l.engine.CompleteGeneral(j.p, st)
}

func (j *idupJob) finish() error {
	if j.parent.inter != nil {
		return j.finishInter()
	}
	cc := collComm{c: j.parent, ctx: nbcContext(j.parent, j.slot)}
	reduce := func(words []uint32, op coll.Op) error { return allreduceWordsOn(j.m, &cc, words, op) }
	id, err := j.l.agreeContextFrom(reduce, &j.window, true)
	if err != nil {
		return errorf(classOf(err), err, "%s on %v", j.op, j.parent)
	}
	if j.copyErr != nil {
		j.l.ctxs.release(id)
		return j.copyErr
	}
	c := j.c
	c.context, c.cc.ctx, c.reqCC.ctx = id, id+1, id+1
	c.applyHints()
	j.l.comms.Store(id, c)
	if err := j.l.attachColls(c); err != nil {
		j.l.comms.CompareAndDelete(id, c)
		j.l.ctxs.release(id)
		return errorf(ClassIntern, err, "%s on %v", j.op, j.parent)
	}
	return nil
}

// finishInter is finish for an intercommunicator: its context over both
// groups, then its bridge's within this one, as interDup agrees them.
func (j *idupJob) finishInter() error {
	p, l := j.parent, j.l
	b := p.inter.bridge
	on := &collComm{c: b, ctx: nbcContext(b, j.slot)}
	s := side{local: b, leader: 0, m: j.m, on: on, swap: func(mine []byte) ([]byte, error) {
		return l.swapWith(nbcContext(p, j.slot), p.group[0], tagInterLeaders, mine)
	}}
	id, err := l.agreeContextOver(s.allreduceWords, true, nil)
	if err != nil {
		return errorf(classOf(err), err, "%s on %v", j.op, p)
	}
	bid, err := l.agreeContextOver(func(words []uint32, op coll.Op) error { return allreduceWordsOn(j.m, on, words, op) }, true, nil)
	if err != nil {
		l.ctxs.release(id)
		return errorf(classOf(err), err, "%s on %v", j.op, p)
	}
	if j.copyErr != nil {
		l.ctxs.release(id)
		l.ctxs.release(bid)
		return j.copyErr
	}
	c := j.c
	bridge, err := l.derive(b, "intercomm bridge", c.Name()+".local", slices.Clone(c.inter.local), bid)
	if err != nil {
		l.ctxs.release(id)
		return errorf(classOf(err), err, "%s on %v", j.op, p)
	}
	c.context, c.inter.bridge = id, bridge
	c.applyHints()
	l.comms.Store(id, c)
	return nil
}

// allreduceWordsOn reduces words in place with op over m's Allreduce on
// cc: an agreement that runs beside the calls outstanding on cc's
// communicator.
func allreduceWordsOn(m *coll.Module, cc *collComm, words []uint32, op coll.Op) error {
	in, out := putWords(words), make([]byte, 4*len(words))
	if err := m.Allreduce(cc, in, out, op); err != nil {
		return fmt.Errorf("coll %s: allreduce: %w", cc.c.colls.ConcurrentProvider("allreduce"), err)
	}
	getWords(out, words)
	return nil
}
