// Package colltest runs coll modules in one process: a communicator of n
// goroutines whose messages go through memory, and reference results to
// check collectives against. The multi-process tests in test/coll run the
// same collectives through gompirun.
package colltest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

// World is a communicator of Size ranks in one process.
type World struct {
	size int
	mu   sync.Mutex
	cond *sync.Cond
	box  map[key][][]byte // queued messages by (src, dst, tag), in order
}

type key struct{ src, dst, tag int }

// NewWorld makes a communicator of size ranks.
func NewWorld(size int) *World {
	w := &World{size: size, box: map[key][][]byte{}}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// Comm returns rank's view of the communicator.
func (w *World) Comm(rank int) coll.Comm { return &comm{w: w, rank: rank} }

// Run calls f on every rank at once, each in its own goroutine, and
// fails t with every rank's error.
func (w *World) Run(t testing.TB, f func(c coll.Comm) error) {
	t.Helper()
	errs := make([]error, w.size)
	var wg sync.WaitGroup
	for r := range w.size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(w.Comm(r))
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, q := range w.box {
		if len(q) > 0 {
			t.Errorf("%d message(s) from rank %d to rank %d tag %d were never received", len(q), k.src, k.dst, k.tag)
		}
	}
}

type comm struct {
	w    *World
	rank int
}

// Poll has nothing to progress: messages move when sent (coll.Poller).
func (c *comm) Poll() error { return nil }

// Blocked has no state report to tell (coll.Poller).
func (c *comm) Blocked(string, int) func() { return func() {} }

func (c *comm) Rank() int    { return c.rank }
func (c *comm) Size() int    { return c.w.size }
func (c *comm) Name() string { return fmt.Sprintf("colltest(%d)", c.w.size) }

func (c *comm) check(op string, peer int) error {
	if peer < 0 || peer >= c.w.size {
		return fmt.Errorf("colltest: %s: rank %d out of range (size %d)", op, peer, c.w.size)
	}
	return nil
}

// Send queues a copy: sends never block, which is more than the real
// engine promises for large messages; test/coll covers that.
func (c *comm) Send(buf []byte, dest, tag int) error {
	if err := c.check("send", dest); err != nil {
		return err
	}
	c.w.mu.Lock()
	k := key{c.rank, dest, tag}
	c.w.box[k] = append(c.w.box[k], append([]byte(nil), buf...))
	c.w.cond.Broadcast()
	c.w.mu.Unlock()
	return nil
}

func (c *comm) Recv(buf []byte, src, tag int) error {
	if err := c.check("recv", src); err != nil {
		return err
	}
	k := key{src, c.rank, tag}
	c.w.mu.Lock()
	for len(c.w.box[k]) == 0 {
		c.w.cond.Wait()
	}
	msg := c.w.box[k][0]
	c.w.box[k] = c.w.box[k][1:]
	c.w.mu.Unlock()
	if coll.IsFailureMark(len(msg), len(buf)) {
		return fmt.Errorf("colltest: rank %d: recv from %d tag %d: %w", c.rank, src, tag, coll.ErrPeerFailed)
	}
	if len(msg) != len(buf) {
		// The classes pmpi's receive gives a message of the wrong length.
		return fmt.Errorf("colltest: rank %d: recv from %d tag %d: %d bytes arrived, %d expected: %w",
			c.rank, src, tag, len(msg), len(buf), coll.WrongLength(len(msg), len(buf)))
	}
	copy(buf, msg)
	return nil
}

// request runs its operation when waited on: receives then match in
// posting order per (source, tag), as MPI's non-overtaking rule asks.
type request struct {
	rank int
	run  func() error
	done bool
}

func (r *request) Done() bool { return r.done }

func (r *request) Wait() error {
	if r.done {
		// The real Comm recycles a request once waited on.
		return fmt.Errorf("colltest: rank %d: a request waited on twice", r.rank)
	}
	r.done = true
	return r.run()
}

func (c *comm) Isend(buf []byte, dest, tag int) coll.Request {
	err := c.Send(buf, dest, tag) // at once: the caller may reuse buf after Wait only, so copying now is fine
	return &request{rank: c.rank, run: func() error { return err }}
}

func (c *comm) Irecv(buf []byte, src, tag int) coll.Request {
	return &request{rank: c.rank, run: func() error { return c.Recv(buf, src, tag) }}
}

func (c *comm) Wait(reqs ...coll.Request) error {
	var first error
	for _, q := range reqs {
		if err := q.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
