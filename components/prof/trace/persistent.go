package trace

import "github.com/gompi/gompi/pmpi"

// A persistent or partitioned request's arrows start and end at its
// starts: each Start of a send begins a message, and the Wait or Test
// that completes a started receive ends one. The tracer keeps what each
// such request was made with until it is freed.

// initRequest records a call that makes a persistent point-to-point
// request and remembers what it was made with.
func (t *Tracer) initRequest(name string, p pending, call func() (*pmpi.Request, error)) (*pmpi.Request, error) {
	sp := t.begin()
	r, err := call()
	sp = t.stop(sp)
	if err == nil && r != nil {
		t.mu.Lock()
		t.inits[r] = p
		t.mu.Unlock()
	}
	t.end(sp, name, t.commArgs(sp, p.comm).withPeer(p.peer, p.tag).withBytes(p.bytes).withErr(err))
	return r, err
}

func (t *Tracer) sendInit(name string, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm,
	call func() (*pmpi.Request, error)) (*pmpi.Request, error) {
	return t.initRequest(name, pending{comm: comm, peer: dest, tag: tag, bytes: moved(count, dt, dest)}, call)
}

// SendInit records MPI_SendInit.
func (t *Tracer) SendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.sendInit("MPI_SendInit", count, dt, dest, tag, comm, func() (*pmpi.Request, error) {
		return t.Next.SendInit(buf, count, dt, dest, tag, comm)
	})
}

// BsendInit records MPI_BsendInit.
func (t *Tracer) BsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.sendInit("MPI_BsendInit", count, dt, dest, tag, comm, func() (*pmpi.Request, error) {
		return t.Next.BsendInit(buf, count, dt, dest, tag, comm)
	})
}

// SsendInit records MPI_SsendInit.
func (t *Tracer) SsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.sendInit("MPI_SsendInit", count, dt, dest, tag, comm, func() (*pmpi.Request, error) {
		return t.Next.SsendInit(buf, count, dt, dest, tag, comm)
	})
}

// RsendInit records MPI_RsendInit.
func (t *Tracer) RsendInit(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	return t.sendInit("MPI_RsendInit", count, dt, dest, tag, comm, func() (*pmpi.Request, error) {
		return t.Next.RsendInit(buf, count, dt, dest, tag, comm)
	})
}

// RecvInit records MPI_RecvInit.
func (t *Tracer) RecvInit(buf []byte, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	p := pending{comm: comm, recv: true, peer: source, tag: tag, bytes: moved(count, dt, source)}
	return t.initRequest("MPI_RecvInit", p, func() (*pmpi.Request, error) {
		return t.Next.RecvInit(buf, count, dt, source, tag, comm)
	})
}

// PsendInit records MPI_PsendInit: its messages are counted apart, as
// partitioned operations match apart from the others.
func (t *Tracer) PsendInit(buf []byte, partitions, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	p := pending{comm: comm, stream: partStream, peer: dest, tag: tag, bytes: moved(partitions*count, dt, dest)}
	return t.initRequest("MPI_PsendInit", p, func() (*pmpi.Request, error) {
		return t.Next.PsendInit(buf, partitions, count, dt, dest, tag, comm)
	})
}

// PrecvInit records MPI_PrecvInit.
func (t *Tracer) PrecvInit(buf []byte, partitions, count int, dt pmpi.Datatype, source, tag int, comm *pmpi.Comm) (*pmpi.Request, error) {
	p := pending{comm: comm, recv: true, stream: partStream, peer: source, tag: tag, bytes: moved(partitions*count, dt, source)}
	return t.initRequest("MPI_PrecvInit", p, func() (*pmpi.Request, error) {
		return t.Next.PrecvInit(buf, partitions, count, dt, source, tag, comm)
	})
}

// startedRequest handles a start of r that succeeded: a send's arrow starts, a
// receive is tracked to its completion. ok is false for a request the
// tracer did not see made (a persistent collective's).
func (t *Tracer) startedRequest(r *pmpi.Request) (p pending, f flowEnd, ok bool) {
	t.mu.Lock()
	p, ok = t.inits[r]
	t.mu.Unlock()
	if !ok {
		return p, 0, false
	}
	if !p.recv {
		f = t.sendFlow(p.comm, p.stream, p.peer, p.tag)
	}
	t.track(r, p)
	return p, f, true
}

// Start records MPI_Start; a send's arrow starts here.
func (t *Tracer) Start(r *pmpi.Request) error {
	sp := t.begin()
	err := t.Next.Start(r)
	sp = t.stop(sp)
	a := args{}.withErr(err)
	if err == nil {
		if p, f, ok := t.startedRequest(r); ok {
			a = t.commArgs(sp, p.comm).withPeer(p.peer, p.tag).withBytes(p.bytes).withFlow(f)
		}
	}
	t.end(sp, "MPI_Start", a)
	return err
}

// Startall records MPI_Startall; its sends' arrows start here.
func (t *Tracer) Startall(reqs []*pmpi.Request) error {
	sp := t.begin()
	err := t.Next.Startall(reqs)
	sp = t.stop(sp)
	a := args{}.withCount(len(reqs)).withErr(err)
	if err == nil {
		for _, r := range reqs {
			if _, f, ok := t.startedRequest(r); ok {
				a = a.withFlow(f)
			}
		}
	}
	t.end(sp, "MPI_Startall", a)
	return err
}

// RequestFree records MPI_RequestFree and forgets the request.
func (t *Tracer) RequestFree(r *pmpi.Request) error {
	id := idOf(r)
	sp := t.begin()
	err := t.Next.RequestFree(r)
	sp = t.stop(sp)
	if err == nil && r != nil {
		t.mu.Lock()
		delete(t.inits, r)
		delete(t.reqs, id)
		t.mu.Unlock()
	}
	t.end(sp, "MPI_RequestFree", args{}.withErr(err))
	return err
}
