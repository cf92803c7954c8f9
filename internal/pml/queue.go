package pml

import (
	"cmp"
	"slices"
)

// queues are one communicator context's posted receives and unexpected
// messages, each in arrival order: matching the first fit in order is what
// keeps MPI's non-overtaking rule.
//
// When the communicator's hints rule wildcards out (MatchKeys) and the
// queues grow past keyAfter entries, the entries move into keyBuckets
// buckets by a hash of what the hints fix (source, tag): a message can
// only match receives of its own key, which all lie in one bucket in
// their order, so matching scans one bucket. A receive or probe with a
// wildcard that the keys exclude merges them back first.
type queues struct {
	posted     fifo[*Request]
	unexpected fifo[*unexpected]

	keys    MatchKeys
	keyed   []queues // the buckets once split; the two fifos above are then empty
	splitAt int      // entries at which to split; 0 means keyAfter
	arrived uint64   // unexpected messages so far: their order across buckets
}

// MatchKeys says which of a message's source and tag a context's
// receives always name: MPI's mpi_assert_no_any_source and
// mpi_assert_no_any_tag hints.
type MatchKeys uint8

const (
	KeySource MatchKeys = 1 << iota // no receive or probe names AnySource
	KeyTag                          // none names AnyTag
)

const (
	// keyAfter is how many entries the queues hold before keys split
	// them: a short queue is scanned faster than a bucket is found.
	keyAfter = 16
	// keyBuckets is a power of two, and keyShift takes the top bits of
	// a 32-bit hash to index it.
	keyBuckets = 64
	keyShift   = 32 - 6
)

// bucket is the bucket of messages and receives of src and tag.
func (k MatchKeys) bucket(src, tag int) int {
	var h uint32
	if k&KeySource != 0 {
		h = uint32(src) * 0x9e3779b1
	}
	if k&KeyTag != 0 {
		h ^= uint32(tag) * 0x85ebca77
	}
	return int(h >> keyShift)
}

// wild reports whether a receive of src and tag could match messages of
// several keys.
func (k MatchKeys) wild(src, tag int) bool {
	return (k&KeySource != 0 && src == AnySource) || (k&KeyTag != 0 && tag == AnyTag)
}

// at returns the queues that hold what matches a message of src and
// tag, or a receive that names both where the keys need them.
func (q *queues) at(src, tag int) *queues {
	if q.keyed == nil {
		return q
	}
	return &q.keyed[q.keys.bucket(src, tag)]
}

// find is at for a receive or probe of src and tag, which may be
// wildcards: one the keys exclude merges the buckets back first.
func (q *queues) find(src, tag int) *queues {
	if q.keyed == nil {
		return q
	}
	if q.keys.wild(src, tag) {
		q.merge()
		return q
	}
	return &q.keyed[q.keys.bucket(src, tag)]
}

// post queues a receive that matched nothing waiting.
func (q *queues) post(r *Request) {
	if q.keys == 0 {
		q.posted.push(r)
		return
	}
	q.at(r.peer, r.tag).posted.push(r)
	q.grew()
}

// hold queues a message that matched no receive.
func (q *queues) hold(u *unexpected) {
	u.seq = q.arrived
	q.arrived++
	if q.keys == 0 {
		q.unexpected.push(u)
		return
	}
	q.at(u.from, int(u.h.tag)).unexpected.push(u)
	q.grew()
}

// grew splits the queues once the keys allow it and they are long.
func (q *queues) grew() {
	if q.keys == 0 || q.keyed != nil {
		return
	}
	n := len(q.posted.all()) + len(q.unexpected.all())
	if n < max(q.splitAt, keyAfter) {
		return
	}
	for _, r := range q.posted.all() {
		if q.keys.wild(r.peer, r.tag) {
			// Posted before the hints: wait until the queues have doubled.
			q.splitAt = 2 * n
			return
		}
	}
	q.keyed = make([]queues, keyBuckets)
	for _, r := range q.posted.all() {
		q.at(r.peer, r.tag).posted.push(r)
	}
	for _, u := range q.unexpected.all() {
		q.at(u.from, int(u.h.tag)).unexpected.push(u)
	}
	q.posted, q.unexpected = fifo[*Request]{}, fifo[*unexpected]{}
}

// merge moves the buckets' entries back into one queue each: receives
// of different buckets never match the same message, so their order
// among each other does not matter; messages go back in arrival order.
func (q *queues) merge() {
	var us []*unexpected
	for i := range q.keyed {
		b := &q.keyed[i]
		for _, r := range b.posted.all() {
			q.posted.push(r)
		}
		us = append(us, b.unexpected.all()...)
	}
	slices.SortFunc(us, func(a, b *unexpected) int { return cmp.Compare(a.seq, b.seq) })
	for _, u := range us {
		q.unexpected.push(u)
	}
	q.keyed, q.splitAt = nil, 0
}

// setKeys makes k the keys of the queues' context.
func (q *queues) setKeys(k MatchKeys) {
	if k == q.keys {
		return
	}
	if q.keyed != nil {
		q.merge()
	}
	q.keys, q.splitAt = k, 0
	q.grew()
}

// each calls f for the queues and, once split, each bucket.
func (q *queues) each(f func(*queues)) {
	f(q)
	for i := range q.keyed {
		f(&q.keyed[i])
	}
}

// SetMatchKeys tells the engine which wildcards receives on context cid
// never use, from its communicator's hints (0 for none). Matching may
// then look only at the receives and messages of one source or tag. A
// receive that uses one anyway still matches correctly, more slowly.
func (e *Engine) SetMatchKeys(cid uint32, k MatchKeys) {
	e.mu.Lock()
	e.queue(cid).setKeys(k)
	e.mu.Unlock()
}

// unexpected is a message that arrived before a receive matched it: an
// eager one with a copy of its payload, or a rendezvous request to send,
// whose payload stays with the sender until a receive is posted.
type unexpected struct {
	h    header
	from int
	data []byte
	seq  uint64 // its place among its context's unexpected messages
}

// maxKeptUnexpected bounds the payload buffer a pooled unexpected message
// keeps: a rare large first fragment is not held for good.
const maxKeptUnexpected = 64 << 10

// newUnexpected records a message that no receive matched, with a copy of
// payload (the transport's buffer). Entries and their buffers come from a
// pool: when ranks run ahead of each other, as in a collective on more ranks
// than CPUs, most messages arrive before their receive, and a fresh buffer
// for each made the garbage collector run every few milliseconds.
func (e *Engine) newUnexpected(from int, h header, payload []byte) *unexpected {
	u, _ := e.unexPool.Get().(*unexpected)
	if u == nil {
		u = new(unexpected)
	}
	u.h, u.from = h, from
	u.data = append(u.data[:0], payload...)
	return u
}

// freeUnexpected returns u to the pool once nothing reads its payload.
func (e *Engine) freeUnexpected(u *unexpected) {
	if cap(u.data) > maxKeptUnexpected {
		u.data = nil
	}
	u.h = header{}
	e.unexPool.Put(u)
}

func (u *unexpected) size() int {
	if u.h.typ == typeMatch {
		return len(u.data)
	}
	return int(u.h.size)
}

// nearContexts bounds the context ids whose queues sit in a slice,
// indexed without hashing; pmpi hands out the lowest free ids.
const nearContexts = 1024

func (e *Engine) queue(cid uint32) *queues {
	if cid < nearContexts {
		if int(cid) >= len(e.queues) {
			e.queues = append(e.queues, make([]*queues, int(cid)+1-len(e.queues))...)
		}
		if e.queues[cid] == nil {
			e.queues[cid] = &queues{}
		}
		return e.queues[cid]
	}
	q := e.farQueues[cid]
	if q == nil {
		q = &queues{}
		e.farQueues[cid] = q
	}
	return q
}

// Posted reports whether a receive is posted on context cid and not yet
// matched: while one is, a new communicator must not take cid, or the
// receive would take its messages.
func (e *Engine) Posted(cid uint32) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	var q *queues
	if cid < nearContexts {
		if int(cid) < len(e.queues) {
			q = e.queues[cid]
		}
	} else {
		q = e.farQueues[cid]
	}
	posted := false
	if q != nil {
		q.each(func(b *queues) { posted = posted || len(b.posted.all()) > 0 })
	}
	return posted
}

// eachQueue calls f for every context's queues, and their buckets.
func (e *Engine) eachQueue(f func(*queues)) {
	for _, q := range e.queues {
		if q != nil {
			q.each(f)
		}
	}
	for _, q := range e.farQueues {
		q.each(f)
	}
}

// takePosted removes and returns the first posted receive that accepts a
// message from `from` with `tag`.
func (q *queues) takePosted(from, tag int) *Request {
	b := q.at(from, tag)
	for i, r := range b.posted.all() {
		if r.matches(from, tag) {
			b.posted.remove(i)
			return r
		}
	}
	return nil
}

// fifo is a queue in arrival order whose entries leave mostly from the
// front: a matched receive in an incast with hundreds posted. Taking the
// first entry moves nothing (shifting the queue on every match cost more
// than the match, since moving pointers while the garbage collector marks
// goes through its write barrier), and the backing array is kept: a queue
// that only moved its start forward made the next window's appends
// allocate a new one, and every rank of an incast collect garbage.
type fifo[T any] struct {
	s    []T // s[head:] are the entries
	head int
}

// all returns the entries, oldest first; valid until the next change.
func (q *fifo[T]) all() []T { return q.s[q.head:] }

func (q *fifo[T]) push(v T) {
	if q.head > 0 && len(q.s) == cap(q.s) { // full at the back
		live := q.s[q.head:]
		if q.head >= len(live) { // at least half of it free at the front: move back
			n := copy(q.s, live)
			clear(q.s[n:])
			q.s = q.s[:n]
		} else { // grow, so that moving back stays rare
			grown := make([]T, len(live), 2*cap(q.s))
			copy(grown, live)
			q.s = grown
		}
		q.head = 0
	}
	q.s = append(q.s, v)
}

// remove removes all()[i], keeping the order. It moves the entries on
// the shorter side of i: a match near the front of a long queue (receives
// from many peers, heard from nearly in order) moves a few, not all those
// behind it.
func (q *fifo[T]) remove(i int) {
	live := q.s[q.head:]
	if i > 0 && i >= len(live)/2 {
		q.s = slices.Delete(q.s, q.head+i, q.head+i+1)
		return
	}
	copy(live[1:i+1], live[:i])
	var zero T
	q.s[q.head] = zero // the dropped slot must not keep its entry alive
	q.head++
	if q.head == len(q.s) {
		q.s, q.head = q.s[:0], 0
	}
}

// removeFunc removes every entry for which drop is true, keeping the order.
func (q *fifo[T]) removeFunc(drop func(T) bool) {
	q.s = append(q.s[:0], slices.DeleteFunc(q.all(), drop)...)
	clear(q.s[len(q.s):cap(q.s)])
	q.head = 0
}
