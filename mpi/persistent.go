package mpi

import "github.com/gompi/gompi/pmpi"

// SendInit makes a persistent send of buf to rank dest of comm: an
// inactive Request that each Start sends buf's contents of the moment
// with, and Wait or Test completes, as many times as the program likes
// without allocating. It lives until Free.
func SendInit[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	return persistent(api().SendInit(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c))
}

// SsendInit is SendInit in synchronous mode (Ssend).
func SsendInit[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	return persistent(api().SsendInit(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c))
}

// BsendInit is SendInit in buffered mode (Bsend).
func BsendInit[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	return persistent(api().BsendInit(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c))
}

// RsendInit is SendInit in ready mode (Rsend).
func RsendInit[T Elem](buf []T, dest, tag int, comm Comm) (Request, error) {
	return persistent(api().RsendInit(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), dest, tag, comm.c))
}

// RecvInit makes a persistent receive into buf from rank source (or
// AnySource) with tag (or AnyTag), inactive until Start.
func RecvInit[T Elem](buf []T, source, tag int, comm Comm) (Request, error) {
	return persistent(api().RecvInit(pmpi.Bytes(buf), len(buf), pmpi.TypeOf[T](), source, tag, comm.c))
}

func persistent(r *pmpi.Request, err error) (Request, error) {
	if r == nil {
		return Request{}, err
	}
	return Request{r: r, persistent: true}, err
}

// Start starts a persistent request, which must be inactive: made by an
// Init call, or completed by Wait or Test since its last Start.
func (r Request) Start() error { return api().Start(r.r) }

// Startall starts every persistent request of reqs; it checks them all
// before it starts any.
func Startall(reqs ...Request) error {
	p := scratch.Get().(*[]*pmpi.Request)
	s := (*p)[:0]
	for _, r := range reqs {
		s = append(s, r.r)
	}
	*p = s
	err := api().Startall(s)
	release(p)
	return err
}

// Free frees the request. An active one completes on its own (a freed
// send's message is still delivered) and is freed then; an inactive
// persistent one is freed at once. Free on the zero Request, on one
// completed or freed already, or on an active collective or partitioned
// one, which MPI does not free, fails with ErrRequest.
func (r Request) Free() error {
	p := r.live()
	if p == nil {
		return &pmpi.Error{Class: pmpi.ClassRequest, Msg: "request free: the request is inactive (completed, freed, or the zero Request)"}
	}
	return api().RequestFree(p)
}

// GetStatus reports whether the request has completed, with its status
// if so, without freeing it or making it inactive: Wait or Test must
// still complete it. On an inactive request it reports true and the
// empty status.
func (r Request) GetStatus() (Status, bool, error) {
	p := r.live()
	if p == nil {
		return pmpi.EmptyStatus(), true, nil
	}
	return api().RequestGetStatus(p)
}

// TestSome completes every request of reqs that has completed, without
// waiting: it writes their indices into indices and their statuses into
// sts (nil ignores them), makes each the zero Request (a persistent
// request stays, inactive) and returns how many it wrote: 0 when none has
// completed, Undefined when none is active. indices and sts hold one
// entry per request, so that the call allocates nothing.
func TestSome(reqs []Request, indices []int, sts []Status) (int, error) {
	p := unwrap(reqs)
	n, err := api().TestSome(*p, indices, sts)
	rewrap(reqs, p)
	return n, err
}

// StatusSetElements sets st to describe count basic elements of T (as
// MPI_Status_set_elements: for a number type, count Ts; for a struct,
// count of its numbers), for a program that builds statuses itself:
// st.GetElements(TypeOf[T]()) then returns count, and GetCount[T] the
// whole Ts.
func StatusSetElements[T Elem](st *Status, count int) error {
	return api().StatusSetElements(st, pmpi.TypeOf[T](), count)
}

// StatusSetCancelled sets whether st says its operation was cancelled.
func StatusSetCancelled(st *Status, cancelled bool) error {
	return api().StatusSetCancelled(st, cancelled)
}

// TestCancelled reports whether st's operation was cancelled.
func TestCancelled(st Status) bool {
	c, _ := api().TestCancelled(&st)
	return c
}

// GrequestStart makes a generalized request (MPI_Grequest_start): an
// operation the program carries out itself, in a goroutine say, and ends
// with GrequestComplete, which Wait, Test and their kin then complete as
// any request. They call query for its status (empty to begin with) and
// then free; the first error of the two is theirs. free runs once, also
// for a request freed with Free before it completed: then in
// GrequestComplete, on its caller's goroutine. cancel runs at
// Cancel, told whether GrequestComplete was called. Any of them may be nil.
func GrequestStart(query func(st *Status) error, free func() error, cancel func(complete bool) error) (Request, error) {
	return started(api().GrequestStart(query, free, cancel))
}

// GrequestComplete says that the generalized request r's operation is
// done.
func (r Request) GrequestComplete() error {
	p := r.live()
	if p == nil {
		return &pmpi.Error{Class: pmpi.ClassRequest, Msg: "grequest complete: the request is inactive (completed, freed, or the zero Request)"}
	}
	return api().GrequestComplete(p)
}
