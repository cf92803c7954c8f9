package pmpi

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/internal/pml"
)

// Partitioned communication (MPI 4.0): PsendInit and PrecvInit make
// persistent requests whose buffer is cut into partitions; after each
// Start the sender marks partitions ready (Pready) and each goes at once,
// and the receiver may ask whether one has arrived (Parrived). The two
// sides may cut the buffer differently: each of the sender's partitions
// travels as a message of its own, which the receiver takes into the
// bytes it covers.
//
// Matching: PsendInit sends a setup message (the caller's tag, the
// partitions and their size, and the tags its partitions go with) on the
// communicator's collective context, with a tag that the caller's gives,
// and PrecvInit posts its receive, so that the operations match in the
// order of their Init calls, as MPI says. The setup tags keep the
// caller's tag modulo partSetupSpan; a receive that takes a setup of
// another tag fails, naming both. Each partitioned send takes a run of
// data tags, one per partition, from the process's (partTags) for its
// life; runs are handed out in turn, so that a freed send's tags come
// back only after every other has been used.

// The tags of partitioned traffic on the collective context: below those
// of hiddenTag.
const (
	partSetupSpan = 1 << 28
	partSetupBase = tagUserBase - hiddenTagSpan
	partDataBase  = partSetupBase - partSetupSpan
	partDataSpan  = partDataBase + 1<<31 // data tag k is partDataBase - k, down to -2^31
)

// partSetupLen is the setup message: the tag, partitions, bytes per
// partition and first data tag, 8 bytes each.
const partSetupLen = 32

// partition is a partitioned request's state.
type partition struct {
	mu    sync.Mutex
	recv  bool
	parts int    // this side's partitions
	count int    // elements of each
	data  []byte // the buffer, all partitions
	ctx   uint32
	peer  int // world rank; -1 for ProcNull

	setup      [partSetupLen]byte
	setupStore pml.Request
	setupReq   *pml.Request // nil once done
	matched    bool         // the receiver knows the sender's cut
	err        error        // a receiver's failed match, for every round

	// The cut the messages follow: the sender's.
	msgs     int // the sender's partitions
	msgBytes int // bytes of each
	first    int // data tag of partition 0: partDataBase - first

	ops []partOp
	// stage holds the messages of a receive whose datatype packs when the
	// sender's partitions cut its elements: each of the receive's
	// partitions is unpacked from it once it has all arrived (unpacked).
	stage    []byte
	unpacked []bool

	active bool // a round is under way
	posted bool // the receiver's receives of this round are posted
	ready  int  // partitions the sender made ready this round
	done   bool // the round's completion was given to the request
	// allReady completes when the sender's last partition is made ready,
	// so that a Wait that began before then wakes.
	allReady      pml.Request
	allReadyStart bool
}

// partOp is one of the sender's partitions: its message's send or
// receive.
type partOp struct {
	store  pml.Request
	req    *pml.Request
	conv   *conversion
	listed bool // checked by the Pready call under way, not sent yet
}

// partTags hands out runs of data tags.
type partTags struct {
	mu   sync.Mutex
	next int
	live map[*partition][2]int // first tag, count
}

// take returns the first of n free data tags for p.
func (t *partTags) take(p *partition, n int) (int, error) {
	if n > partDataSpan {
		return 0, fmt.Errorf("%d partitions are more than a send may have (%d)", n, partDataSpan)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	start, wrapped := t.next, false
	for {
		if start+n > partDataSpan {
			if wrapped {
				return 0, fmt.Errorf("%d partitions do not fit the %d tags that the live partitioned sends leave free", n, partDataSpan)
			}
			start, wrapped = 0, true
		}
		clash := false
		for _, s := range t.live {
			if start < s[0]+s[1] && s[0] < start+n {
				start, clash = s[0]+s[1], true
				break
			}
		}
		if !clash {
			break
		}
	}
	if t.live == nil {
		t.live = map[*partition][2]int{}
	}
	t.live[p] = [2]int{start, n}
	t.next = start + n
	return start, nil
}

func (t *partTags) give(p *partition) {
	t.mu.Lock()
	delete(t.live, p)
	t.mu.Unlock()
}

// PsendInit makes a partitioned send of partitions parts of count
// elements of dt each from buf to rank dest of comm: a persistent request
// that Start starts, whose partitions Pready sends, and that Wait
// completes once every partition has gone.
func (*realAPI) PsendInit(buf []byte, partitions, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return partInit("psend init", buf, partitions, count, dt, dest, tag, comm, false)
}

// PrecvInit makes a partitioned receive into partitions parts of count
// elements of dt each: Parrived tells which have arrived, Wait completes
// once all have. The sender may cut the same bytes into other partitions.
func (*realAPI) PrecvInit(buf []byte, partitions, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error) {
	return partInit("precv init", buf, partitions, count, dt, source, tag, comm, true)
}

func partInit(op string, buf []byte, partitions, count int, dt Datatype, peer, tag int, comm *Comm, recv bool) (*Request, error) {
	if partitions < 0 || count < 0 {
		return nil, argError(op, comm, ClassCount, "%d partitions of %d elements: neither may be negative", partitions, count)
	}
	hi, n := bits.Mul64(uint64(partitions), uint64(count))
	if hi != 0 || n > 1<<62 {
		return nil, argError(op, comm, ClassCount, "%d partitions of %d elements are too many", partitions, count)
	}
	if recv && (peer == AnySource || tag == AnyTag) {
		return nil, argError(op, comm, ClassArg, "partitioned communication takes no AnySource or AnyTag (source %s, %s)", rankDesc(peer), tagDesc(tag))
	}
	l, data, err := p2pArgs(op, buf, int(n), dt, peer, tag, comm, recv)
	if err != nil {
		return nil, err
	}
	x := &partition{recv: recv, parts: partitions, count: count, data: data, ctx: comm.context + 1, peer: -1}
	r := l.persistent(comm, dt, op[:len(op)-len(" init")], peer, tag, recv)
	r.ext.part = x
	if peer == ProcNull {
		return r, nil
	}
	x.peer = comm.group[peer]
	if recv {
		x.setupReq = l.engine.StartRecv(&x.setupStore, x.ctx, x.peer, partSetupTag(tag), x.setup[:])
		return r, nil
	}
	x.msgs, x.msgBytes = partitions, count*dt.Size()
	if x.first, err = l.parts.take(x, partitions); err != nil {
		return nil, argError(op, comm, ClassOther, "%v", err)
	}
	binary.LittleEndian.PutUint64(x.setup[0:], uint64(tag))
	binary.LittleEndian.PutUint64(x.setup[8:], uint64(partitions))
	binary.LittleEndian.PutUint64(x.setup[16:], uint64(x.msgBytes))
	binary.LittleEndian.PutUint64(x.setup[24:], uint64(x.first))
	x.setupReq = l.engine.StartSend(&x.setupStore, x.ctx, x.peer, partSetupTag(tag), x.setup[:], false)
	x.ops = make([]partOp, partitions)
	return r, nil
}

// argError is a partitioned call's error on comm, through its handler.
func argError(op string, comm *Comm, class ErrorClass, format string, args ...any) error {
	if comm == nil {
		return errorf(class, nil, "%s: "+format, append([]any{op}, args...)...)
	}
	return comm.handle(errorf(class, nil, "%s on %v: "+format, append([]any{op, comm}, args...)...))
}

func partSetupTag(tag int) int { return partSetupBase - tag%partSetupSpan }

func (x *partition) dataTag(p int) int { return partDataBase - (x.first + p) }

// start begins a round: the request's completion is a general engine
// request that pending gives once every partition has gone or arrived.
func (x *partition) start(r *Request) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.active, x.posted, x.ready, x.done = true, false, 0, false
	if x.peer < 0 {
		return // ProcNull: complete at once, as a persistent request's
	}
	r.pml = r.lib.engine.StartGeneral(&r.pmlStore)
	if !x.recv && x.msgs > 0 {
		x.allReady = pml.Request{}
		r.lib.engine.StartGeneral(&x.allReady)
		x.allReadyStart = true
	}
}

// Pready marks partition p of the partitioned send r ready: it is sent.
func (*realAPI) Pready(partition int, r *Request) error {
	return pready("pready", r, partition, partition, nil)
}

// PreadyRange marks partitions lo to hi (both included) ready.
func (*realAPI) PreadyRange(lo, hi int, r *Request) error {
	return pready("pready range", r, lo, hi, nil)
}

// PreadyList marks the listed partitions ready.
func (*realAPI) PreadyList(partitions []int, r *Request) error {
	if len(partitions) == 0 {
		_, err := partArgs("pready list", r, false)
		return err
	}
	return pready("pready list", r, 0, len(partitions)-1, partitions)
}

// pready sends partitions lo to hi, or list[lo:hi+1] when list is not
// nil. Every one is checked before any is sent, so that a refused call
// has done nothing and the program may correct it and call again.
func pready(op string, r *Request, lo, hi int, list []int) error {
	x, err := partArgs(op, r, false)
	if err != nil {
		return err
	}
	part := func(i int) int {
		if list != nil {
			return list[i]
		}
		return i
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.active {
		return argError(op, r.comm, ClassRequest, "%v is not started: Start it before its partitions are ready", r)
	}
	if lo > hi {
		return argError(op, r.comm, ClassArg, "partitions %d to %d of %v: the range is empty (want lo <= hi)", lo, hi, r)
	}
	for i := lo; i <= hi; i++ {
		if p := part(i); p < 0 || p >= x.parts {
			return argError(op, r.comm, ClassArg, "partition %d of %v, which has %d (0 to %d)", p, r, x.parts, x.parts-1)
		}
	}
	if x.peer < 0 {
		return nil
	}
	for i := lo; i <= hi; i++ {
		p := part(i)
		o := &x.ops[p]
		if o.req == nil && !o.listed {
			o.listed = true
			continue
		}
		twice := o.listed
		for j := lo; j < i; j++ {
			x.ops[part(j)].listed = false
		}
		if twice {
			return argError(op, r.comm, ClassArg, "partition %d of %v is listed twice", p, r)
		}
		return argError(op, r.comm, ClassRequest, "partition %d of %v is ready already in this round", p, r)
	}
	for i := lo; i <= hi; i++ {
		p := part(i)
		o := &x.ops[p]
		o.listed = false
		e := r.lib.engine
		var flat []byte
		if r.dt.t.packs {
			flat, o.conv = streamFor(r.dt.t, x.data[p*x.count*extentOf(r.dt):], x.count)
		} else {
			flat = x.data[p*x.msgBytes : (p+1)*x.msgBytes]
		}
		o.store = pml.Request{}
		if o.conv != nil {
			o.req = e.PostSendLayout(&o.store, x.ctx, x.peer, x.dataTag(p), o.conv, false, false, 0)
			e.Flush(x.peer)
		} else {
			o.req = e.StartSend(&o.store, x.ctx, x.peer, x.dataTag(p), flat, false)
		}
		x.ready++
	}
	if x.ready == x.parts && x.allReadyStart {
		x.allReadyStart = false
		r.lib.engine.CompleteGeneral(&x.allReady, pml.Status{})
	}
	return nil
}

// extentOf is dt's extent, as a partition's step in its buffer.
func extentOf(dt Datatype) int {
	_, ext := dt.Extent()
	return ext
}

// Parrived reports whether partition p of the partitioned receive r has
// arrived in this round.
func (*realAPI) Parrived(r *Request, partition int) (bool, error) {
	const op = "parrived"
	x, err := partArgs(op, r, true)
	if err != nil {
		return false, err
	}
	if partition < 0 || partition >= x.parts {
		return false, argError(op, r.comm, ClassArg, "partition %d of %v, which has %d (0 to %d)", partition, r, x.parts, x.parts-1)
	}
	if atomic.LoadUint32(&r.gen)%2 == 0 || x.peer < 0 {
		return true, nil // inactive, or from ProcNull: nothing is awaited
	}
	r.lib.poll()
	x.mu.Lock()
	x.drive(r)
	failed, arrived := x.err != nil, x.posted && x.arrived(r, partition)
	x.mu.Unlock()
	if failed {
		return true, nil // the request's completion reports it
	}
	if !arrived {
		r.lib.engine.Idle()
	}
	return arrived, nil
}

// partArgs checks that r is a partitioned request of the right side.
func partArgs(op string, r *Request, recv bool) (*partition, error) {
	if r == nil {
		return nil, errorf(ClassRequest, nil, "%s: the request is nil", op)
	}
	if r.ext == nil || r.ext.part == nil || r.ext.part.recv != recv {
		side := "send (PsendInit)"
		if recv {
			side = "receive (PrecvInit)"
		}
		return nil, errorf(ClassRequest, nil, "%s: %v is not a partitioned %s", op, r, side)
	}
	if r.ext.freed {
		return nil, errorf(ClassRequest, nil, "%s: %v was freed", op, r)
	}
	return r.ext.part, nil
}

// drive takes the receiver's setup message if it has come and, in a
// round, posts the round's receives once the sender's cut is known.
// Called with x.mu held.
func (x *partition) drive(r *Request) {
	if !x.recv {
		return
	}
	e := r.lib.engine
	if !x.matched && x.err == nil {
		if !x.setupReq.Done() {
			return
		}
		x.match(r, e.WaitRef(x.setupReq))
		x.setupReq = nil
	}
	if !x.active || x.posted || x.err != nil {
		return
	}
	x.posted = true
	esize := r.dt.Size()
	clear(x.unpacked)
	for m := range x.ops {
		o := &x.ops[m]
		o.store = pml.Request{}
		first := m * x.msgBytes
		var flat []byte
		switch {
		case x.stage != nil:
			flat = x.stage[first : first+x.msgBytes]
		case r.dt.t.packs:
			flat, o.conv = streamFor(r.dt.t, x.data[first/esize*extentOf(r.dt):], x.msgBytes/esize)
		default:
			flat = x.data[first : first+x.msgBytes]
		}
		if o.conv != nil {
			o.req = e.StartRecvLayout(&o.store, x.ctx, x.peer, x.dataTag(m), o.conv)
		} else {
			o.req = e.StartRecv(&o.store, x.ctx, x.peer, x.dataTag(m), flat)
		}
	}
}

// match reads the sender's setup message: its tag must be the receive's,
// and its bytes those of the receive's buffer. Where the sender's
// partitions cut elements of a packing receive type, the messages go to
// a stage.
func (x *partition) match(r *Request, st *pml.Status) {
	if st.Err != nil {
		x.err = failure(fmt.Sprintf("setup of %s", r.desc()), st.Err)
		return
	}
	b := x.setup[:]
	tag := int(binary.LittleEndian.Uint64(b[0:]))
	msgs := int(binary.LittleEndian.Uint64(b[8:]))
	msgBytes := int(binary.LittleEndian.Uint64(b[16:]))
	first := int(binary.LittleEndian.Uint64(b[24:]))
	mine := x.parts * x.count * r.dt.Size()
	esize := max(r.dt.Size(), 1)
	switch {
	case tag != r.tag:
		x.err = errorf(ClassTag, nil, "%s matched a partitioned send of tag %d: tags that are equal modulo %d must not be in use at once between two ranks", r.desc(), tag, partSetupSpan)
	case msgs*msgBytes != mine:
		x.err = errorf(ClassTruncate, nil, "%s: the partitioned send has %d partitions of %d bytes (%d), the receive %d partitions of %d elements of %s (%d bytes)",
			r.desc(), msgs, msgBytes, msgs*msgBytes, x.parts, x.count, r.dt.Name(), mine)
	}
	if x.err != nil {
		return
	}
	x.matched, x.msgs, x.msgBytes, x.first = true, msgs, msgBytes, first
	x.ops = make([]partOp, msgs)
	if r.dt.t.packs && msgBytes%esize != 0 {
		x.stage, x.unpacked = make([]byte, mine), make([]bool, x.parts)
	}
}

// arrived reports whether the receive's partition j has all its bytes,
// and unpacks it from the stage then. Called with x.mu held, once the
// receives are posted.
func (x *partition) arrived(r *Request, j int) bool {
	size := x.count * r.dt.Size()
	lo, hi := j*size, (j+1)*size
	first, end := x.carriers(j, lo, hi)
	for m := first; m < end; m++ {
		if q := x.ops[m].req; q != nil && !q.Done() {
			return false
		}
	}
	if x.stage != nil && !x.unpacked[j] {
		x.unpacked[j] = true
		r.dt.t.unpack(x.data[j*x.count*extentOf(r.dt):], x.stage[lo:hi], x.count)
	}
	return true
}

// carriers is the range of the sender's messages that carry the
// receive's partition j, its bytes lo to hi. An empty partition has no
// bytes to map, and the sender's messages are empty too: it arrives with
// the sender's message of its number, or, where the sides' partitions
// differ, with all of them.
func (x *partition) carriers(j, lo, hi int) (first, end int) {
	switch {
	case lo < hi:
		return lo / x.msgBytes, min(x.msgs, (hi+x.msgBytes-1)/x.msgBytes)
	case x.msgs == x.parts:
		return j, j + 1
	}
	return 0, x.msgs
}

// pending is Request.pending for a partitioned request: an engine request
// of the round's that has not completed, or nil once every one has, when
// it completes the request's own with the round's status.
func (x *partition) pending(r *Request) *pml.Request {
	if r.pml == nil || r.pml.Done() {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return nil
	}
	if x.setupReq != nil && !x.recv {
		if !x.setupReq.Done() {
			return x.setupReq
		}
		if st := r.lib.engine.WaitRef(x.setupReq); st.Err != nil {
			x.err = failure(fmt.Sprintf("setup of %s", r.desc()), st.Err)
		}
		x.setupReq = nil
	}
	x.drive(r)
	if x.recv && !x.matched && x.err == nil {
		return x.setupReq
	}
	if !x.recv && x.ready < x.parts {
		return &x.allReady
	}
	if x.err == nil {
		for i := range x.ops {
			if q := x.ops[i].req; q != nil && !q.Done() {
				return q
			}
		}
	}
	x.finish(r)
	return nil
}

// finish ends the round: every operation has completed (or the match
// failed); the request's engine request completes with the round's
// status. Called with x.mu held.
func (x *partition) finish(r *Request) {
	e := r.lib.engine
	err := x.err
	bytes := 0
	for i := range x.ops {
		o := &x.ops[i]
		if o.req == nil {
			continue
		}
		st := e.WaitRef(o.req)
		if o.conv != nil {
			o.conv.finish(x.recv, st.Bytes)
			o.conv = nil
		}
		if st.Err != nil && err == nil {
			err = failure(fmt.Sprintf("partition %d of %s", i, r.desc()), st.Err)
		}
		bytes += st.Bytes
		o.req = nil
	}
	if x.stage != nil && err == nil {
		for j := range x.parts {
			x.arrived(r, j)
		}
	}
	st := pml.Status{Source: x.peer, Tag: r.tag, Bytes: bytes, Total: bytes, Err: err}
	if !x.recv {
		st.Bytes, st.Total = 0, 0
	}
	x.active, x.done = false, true
	e.CompleteGeneral(r.pml, st)
}

// wait waits until r's round is done.
func (x *partition) wait(r *Request) {
	for p := x.pending(r); p != nil; p = x.pending(r) {
		r.lib.engine.WaitRef(p)
	}
}

// release gives the send's data tags back; a receive's setup, never
// matched, is cancelled.
func (x *partition) release(l *library) {
	if x.recv {
		x.mu.Lock()
		if q := x.setupReq; q != nil && !q.Done() {
			_, _ = l.engine.Cancel(q)
		}
		x.mu.Unlock()
		return
	}
	l.parts.give(x)
}
