package pmpi

import "github.com/gompi/gompi/internal/lowlevel"

// requestCache holds a library's recycled requests, last in first out, so
// that a window of non-blocking calls reuses the requests (and the cache
// lines) of the last one. A sync.Pool took two locked instructions per
// request beyond its private slot, a pop and a push, each waiting for the
// processor's earlier stores: a sixth of rank 0's time in an 8-rank
// incast. Here a request costs one compare-and-swap to get, and WaitAll
// puts its requests back together under one.
type requestCache struct {
	mu     lowlevel.SpinLock
	free   []*Request
	handed uint32 // requests handed out, under mu: each one's mark
}

// maxCachedRequests bounds the cache: a program that once had many
// requests pending does not keep them all for good.
const maxCachedRequests = 4096

// get returns a recycled request, or a new one.
// Its mark is a count taken under the lock that get holds anyway, so
// naming a send for Cancel costs no instruction of its own. It skips 0,
// which names no message, and comes round again only after 2^32
// requests.
func (c *requestCache) get() *Request {
	c.mu.Lock()
	c.handed++
	if c.handed == 0 {
		c.handed = 1
	}
	mark := c.handed
	n := len(c.free)
	if n == 0 {
		c.mu.Unlock()
		return &Request{mark: mark}
	}
	r := c.free[n-1]
	c.free[n-1] = nil
	c.free = c.free[:n-1]
	c.mu.Unlock()
	r.mark = mark
	return r
}

// put takes back retired requests; those beyond the bound go to the
// garbage collector.
func (c *requestCache) put(rs ...*Request) {
	c.mu.Lock()
	room := max(maxCachedRequests-len(c.free), 0)
	c.free = append(c.free, rs[:min(len(rs), room)]...)
	c.mu.Unlock()
}

// retired gathers the requests that one call completes, for one put.
type retired struct {
	c  *requestCache
	n  int
	rs [64]*Request
}

// add retires r, started in generation g, unless another completion
// did; flush must follow.
func (b *retired) add(r *Request, g uint32) {
	c := r.retire(g)
	if c == nil {
		return
	}
	if b.n == len(b.rs) || (b.n > 0 && b.c != c) {
		b.flush()
	}
	b.c = c
	b.rs[b.n] = r
	b.n++
}

// flush puts the gathered requests back.
func (b *retired) flush() {
	if b.n > 0 {
		b.c.put(b.rs[:b.n]...)
		clear(b.rs[:b.n])
		b.n = 0
	}
}

// nextMark returns a mark for a send that a persistent request starts
// again: each start's eager message must be told from the last one's,
// which may still wait unmatched at the receiver.
func (c *requestCache) nextMark() uint32 {
	c.mu.Lock()
	c.handed++
	if c.handed == 0 {
		c.handed = 1
	}
	mark := c.handed
	c.mu.Unlock()
	return mark
}
