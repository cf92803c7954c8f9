package pml

// queues are one communicator context's posted receives and unexpected
// messages, each in arrival order: matching the first fit in order is what
// keeps MPI's non-overtaking rule.
type queues struct {
	posted     fifo[*Request]
	unexpected fifo[*unexpected]
}

// unexpected is a message that arrived before a receive matched it: an
// eager one with a copy of its payload, or a rendezvous request to send,
// whose payload stays with the sender until a receive is posted.
type unexpected struct {
	h    header
	from int
	data []byte
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

// eachQueue calls f for every context's queues.
func (e *Engine) eachQueue(f func(*queues)) {
	for _, q := range e.queues {
		if q != nil {
			f(q)
		}
	}
	for _, q := range e.farQueues {
		f(q)
	}
}

// takePosted removes and returns the first posted receive that accepts a
// message from `from` with `tag`.
func (q *queues) takePosted(from, tag int) *Request {
	for i, r := range q.posted.all() {
		if r.matches(from, tag) {
			q.posted.remove(i)
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
