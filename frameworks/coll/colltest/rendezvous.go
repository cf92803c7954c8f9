package colltest

import (
	"sync"

	"github.com/gompi/gompi/frameworks/coll"
)

// Rendezvous wraps a colltest rank so that a send completes only once its
// receive took it, as the real engine does with messages above its eager
// limit, and so that posted requests progress in the background. An
// algorithm that relies on sends finishing on their own deadlocks here
// instead of on a cluster.
type rendezvous struct {
	coll.Comm
	mu   sync.Mutex
	last map[chainKey]chan struct{} // the latest request of each chain
}

// chainKey orders the requests of one direction, peer and tag, so that
// they match in posting order.
type chainKey struct {
	send      bool
	peer, tag int
}

// ackTag carries the receipt of a message on tag: far from every
// collective's tags.
func ackTag(tag int) int { return tag - 1_000_000 }

// NewRendezvous wraps c; tests of algorithms run their ranks through it
// to check that no algorithm relies on sends that finish on their own.
func NewRendezvous(c coll.Comm) coll.Comm {
	return &rendezvous{Comm: c, last: map[chainKey]chan struct{}{}}
}

type rvRequest struct {
	done chan struct{}
	err  error
}

func (q *rvRequest) Wait() error {
	<-q.done
	return q.err
}

func (q *rvRequest) Done() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

// start runs op after the chain's previous request finished.
func (c *rendezvous) start(k chainKey, op func() error) *rvRequest {
	q := &rvRequest{done: make(chan struct{})}
	c.mu.Lock()
	prev := c.last[k]
	c.last[k] = q.done
	c.mu.Unlock()
	go func() {
		if prev != nil {
			<-prev
		}
		q.err = op()
		close(q.done)
	}()
	return q
}

func (c *rendezvous) Isend(buf []byte, dest, tag int) coll.Request {
	return c.start(chainKey{true, dest, tag}, func() error {
		if err := c.Comm.Send(buf, dest, tag); err != nil {
			return err
		}
		return c.Comm.Recv(nil, dest, ackTag(tag))
	})
}

func (c *rendezvous) Irecv(buf []byte, src, tag int) coll.Request {
	return c.start(chainKey{false, src, tag}, func() error {
		err := c.Comm.Recv(buf, src, tag)
		// A message of the wrong length is taken all the same: its
		// sender goes on, as with the real engine.
		if ack := c.Comm.Send(nil, src, ackTag(tag)); err == nil {
			err = ack
		}
		return err
	})
}

func (c *rendezvous) Send(buf []byte, dest, tag int) error { return c.Wait(c.Isend(buf, dest, tag)) }
func (c *rendezvous) Recv(buf []byte, src, tag int) error  { return c.Wait(c.Irecv(buf, src, tag)) }

func (c *rendezvous) Wait(reqs ...coll.Request) error {
	var first error
	for _, r := range reqs {
		if err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
