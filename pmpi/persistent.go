package pmpi

import (
	"sync/atomic"

	"github.com/gompi/gompi/internal/lowlevel"
	"github.com/gompi/gompi/internal/pml"
)

// reqKind tells a plain request from the kinds that keep state in
// requestExt.
type reqKind uint8

const (
	reqPlain      reqKind = iota
	reqPersistent         // made by SendInit and its kind, started by Start
	reqPair               // Isendrecv's: completes when both of its halves do
	reqColl               // a non-blocking collective's: ext.coll runs it (nbc.go)
	reqGeneral            // a generalized request's: the program completes it (grequest.go)
	reqIdup               // a CommIdup's: ext.idup agrees the context (nbc_idup.go)
)

// sendMode is a send's mode, which a persistent send keeps for its starts.
type sendMode uint8

const (
	modeStandard sendMode = iota
	modeSync
	modeBuffered
	modeReady
)

// requestExt is the state of a persistent request, of a pair, or of a
// non-blocking collective.
type requestExt struct {
	// A persistent request: the operation each Start repeats.
	mode   sendMode
	data   []byte // the part of the buffer its count elements occupy (all of it for a packed datatype)
	count  int
	freed  bool // Free ended it: a Start fails, a Wait returns at once
	listed bool // seen by the Startall checking it, which clears it
	// coll is a persistent or non-blocking collective's call (nbc.go),
	// nil for the others.
	coll *nbcJob
	// part is a partitioned request's state (partitioned.go).
	part *partition

	// A pair: its halves, and their generations when it started.
	send, recv       *Request
	sendGen, recvGen uint32
	// tmp is IsendrecvReplace's copy of the message it sends, from the
	// library's pool; it goes back when the send completes.
	tmp *[]byte
	// greq is a generalized request's functions.
	greq *grequest
	// idup is a CommIdup's agreement under way.
	idup *idupJob
}

// SendInit makes a persistent standard-mode send of count elements of dt
// from buf to rank dest of comm, inactive until Start. Each Start sends
// what buf holds then; the request lives until Free.
func (*realAPI) SendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return sendInit("send init", modeStandard, buf, count, dt, dest, tag, comm)
}

// SsendInit is SendInit in synchronous mode.
func (*realAPI) SsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return sendInit("ssend init", modeSync, buf, count, dt, dest, tag, comm)
}

// BsendInit is SendInit in buffered mode: each Start copies the message
// into the attached buffer, as Bsend does.
func (*realAPI) BsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return sendInit("bsend init", modeBuffered, buf, count, dt, dest, tag, comm)
}

// RsendInit is SendInit in ready mode: each Start must follow the
// posting of its receive, as for Rsend.
func (*realAPI) RsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return sendInit("rsend init", modeReady, buf, count, dt, dest, tag, comm)
}

func sendInit(op string, mode sendMode, buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	l, data, err := p2pArgs(op, buf, count, dt, dest, tag, comm, false)
	if err != nil {
		return nil, err
	}
	r := l.persistent(comm, dt, op[:len(op)-len(" init")], dest, tag, false)
	r.ext.mode, r.ext.data, r.ext.count = mode, data, count
	return r, nil
}

// RecvInit makes a persistent receive into buf, inactive until Start.
func (*realAPI) RecvInit(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error) {
	l, data, err := p2pArgs("recv init", buf, count, dt, source, tag, comm, true)
	if err != nil {
		return nil, err
	}
	r := l.persistent(comm, dt, "recv", source, tag, true)
	r.ext.data, r.ext.count = data, count
	return r, nil
}

// persistent returns a new inactive persistent request. It never goes
// back to the cache: a handle kept after Free must not name another
// operation later.
func (l *library) persistent(comm *Comm, dt Datatype, op string, peer, tag int, recv bool) *Request {
	r := &Request{lib: l, comm: comm, dt: dt, op: op, peer: peer, tag: tag, recv: recv, kind: reqPersistent}
	r.ext = &requestExt{}
	return r
}

// Start starts a persistent request; it must be inactive (made by an
// Init call, or completed by a Wait or Test since its last Start).
func (*realAPI) Start(r *Request) error {
	if err := startable("start", r); err != nil {
		return handledBy(r, err)
	}
	return r.start()
}

// Startall starts every request of reqs, as Start each; it checks them
// all, a request listed twice too, before it starts any.
func (*realAPI) Startall(reqs []*Request) error {
	for i, r := range reqs {
		err := startable("startall", r)
		if err == nil && r.ext.listed {
			err = errorf(ClassRequest, nil, "startall: request %d, %v, is listed twice: a request may appear once", i, r)
		}
		if err != nil {
			unlist(reqs[:i])
			return handledBy(r, err)
		}
		r.ext.listed = true
	}
	unlist(reqs)
	for _, r := range reqs {
		if err := r.start(); err != nil {
			return err
		}
	}
	return nil
}

func unlist(reqs []*Request) {
	for _, r := range reqs {
		r.ext.listed = false
	}
}

// handledBy passes err, about r, to the error handler of r's
// communicator, where r has one.
func handledBy(r *Request, err error) error {
	if r == nil || r.comm == nil {
		return err
	}
	return r.comm.handle(err)
}

// startable checks that r is a persistent request that Start may start.
func startable(op string, r *Request) error {
	switch {
	case r == nil:
		return errorf(ClassRequest, nil, "%s: the request is nil", op)
	case r.kind != reqPersistent:
		return errorf(ClassRequest, nil, "%s: %v is not persistent (make one with SendInit, RecvInit, AllreduceInit and their kind)", op, r)
	case r.ext.freed:
		return errorf(ClassRequest, nil, "%s: %v was freed", op, r)
	case atomic.LoadUint32(&r.gen)%2 != 0:
		return errorf(ClassRequest, nil, "%s: %v is active: complete it with Wait or Test before starting it again", op, r)
	}
	if _, err := running(op); err != nil {
		return err
	}
	return checkComm(op, r.comm)
}

// start starts persistent request r, inactive: its generation becomes odd
// first, as newRequest does, then the operation goes to the engine,
// into r's own engine request. Nothing is allocated.
func (r *Request) start() error {
	l, comm := r.lib, r.comm
	r.mark = l.cache.nextMark()
	lowlevel.StoreRelease32(&r.gen, atomic.LoadUint32(&r.gen)+1)
	if x := r.ext; x.coll != nil {
		if err := x.coll.start(r); err != nil {
			r.recycle(atomic.LoadUint32(&r.gen))
			return err
		}
		return nil
	} else if x.part != nil {
		x.part.start(r)
		return nil
	}
	if r.peer == ProcNull {
		return nil
	}
	x := r.ext
	data := x.data
	if r.dt.t.packs && x.mode != modeBuffered {
		data, r.conv = streamFor(r.dt.t, data, x.count)
	}
	w := worldSource(comm, r.peer)
	if r.conv != nil {
		if r.recv {
			r.pml = l.engine.StartRecvLayout(&r.pmlStore, comm.context, w, r.tag, r.conv)
		} else {
			r.pml = l.engine.PostSendLayout(&r.pmlStore, comm.context, w, r.tag, r.conv, x.mode == modeSync, x.mode == modeReady, r.mark)
		}
		return nil
	}
	if r.recv {
		r.pml = l.engine.StartRecv(&r.pmlStore, comm.context, w, r.tag, data)
		return nil
	}
	switch x.mode {
	case modeBuffered:
		if err := l.bsend("bsend", data, x.count, r.dt, r.peer, r.tag, comm); err != nil {
			r.recycle(atomic.LoadUint32(&r.gen))
			return err
		}
	case modeReady:
		r.pml = l.engine.PostReady(&r.pmlStore, comm.context, w, r.tag, data, r.mark)
	case modeStandard:
		if sent, err := l.engine.PostEager(comm.context, w, r.tag, data, r.mark); sent {
			if err != nil {
				r.recycle(atomic.LoadUint32(&r.gen))
				return comm.handle(failure(r.desc(), err))
			}
			r.posted = true
			return nil
		}
		r.pml = l.engine.PostSend(&r.pmlStore, comm.context, w, r.tag, data, false, r.mark)
	case modeSync:
		r.pml = l.engine.PostSend(&r.pmlStore, comm.context, w, r.tag, data, true, r.mark)
	}
	return nil
}

// free ends persistent request x for good.
func (x *requestExt) free(l *library) {
	if x.freed {
		return
	}
	x.freed = true
	if x.coll != nil {
		x.coll.free()
	}
	if x.part != nil {
		x.part.release(l)
	}
}

// endSpecial ends a persistent request's or a pair's activity at its
// completion (retire): it reports whether the request stays out of the
// cache, as a persistent one does, inactive, or gone if it was freed.
func (r *Request) endSpecial() bool {
	x := r.ext
	if r.kind == reqPersistent {
		r.pml, r.posted = nil, false
		if r.freeing {
			x.free(r.lib)
			r.freeing = false
		}
		return true
	}
	x.send, x.recv, x.tmp, x.coll, x.greq, x.idup = nil, nil, nil, nil, nil, nil
	r.kind = reqPlain
	return false
}

// pending returns an engine request of r's that has not completed, or
// nil: r's own, for a pair its first half still pending, for a
// partitioned request one of its round's.
func (r *Request) pending() *pml.Request {
	switch r.kind {
	case reqPair:
		return r.pairPending()
	case reqPersistent:
		if r.ext.part != nil {
			return r.ext.part.pending(r)
		}
	}
	if r.pml != nil && !r.pml.Done() {
		return r.pml
	}
	return nil
}
