package sm

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/gompi/gompi/frameworks/coll"
)

// Freed communicators' segments are kept, poolMax at most, and a new
// communicator's set-up (lazy.go) takes one over when every member still holds
// the same one in the same rank: a program that makes and frees
// communicators (a Dup per phase) then maps a segment once, not at every
// communicator's set-up, and the memory that sm holds stays bounded.
// A reused segment's epochs and call numbers go on from where its last
// communicator left them, alike on every member (checked), so nothing in
// it needs clearing: to the protocol, the new communicator's calls are
// the old one's next calls.

// poolMax bounds the segments a process keeps for reuse.
const poolMax = 4

// pooled is a freed communicator's segment as one member left it.
type pooled struct {
	seg          *segment
	rank         int
	epoch, calls uint64
}

// pool holds the segments of freed communicators, newest last. It is
// safe for concurrent use: communicators are made and freed by any
// goroutine.
type pool struct {
	mu      sync.Mutex
	entries []pooled
}

// put keeps p, unmapping the oldest entry when the pool is full.
func (pl *pool) put(p pooled) error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	var err error
	if len(pl.entries) == poolMax {
		err = pl.entries[0].seg.unmap()
		pl.entries = pl.entries[1:]
	}
	pl.entries = append(pl.entries, p)
	return err
}

// takeNewest removes and returns the newest entry of layout lay held as
// rank 0, if any.
func (pl *pool) takeNewest(lay layout) (pooled, bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i := len(pl.entries) - 1; i >= 0; i-- {
		if e := pl.entries[i]; e.rank == 0 && e.seg.lay == lay {
			pl.entries = append(pl.entries[:i], pl.entries[i+1:]...)
			return e, true
		}
	}
	return pooled{}, false
}

// take removes and returns the entry of the segment named token, held as
// rank with epoch and calls, if there is one.
func (pl *pool) take(token uint64, rank int, epoch, calls uint64, lay layout) (pooled, bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, e := range pl.entries {
		if e.seg.token() == token && e.rank == rank && e.epoch == epoch && e.calls == calls && e.seg.lay == lay {
			pl.entries = append(pl.entries[:i], pl.entries[i+1:]...)
			return e, true
		}
	}
	return pooled{}, false
}

// drain unmaps every entry.
func (pl *pool) drain() error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	var errs []error
	for _, e := range pl.entries {
		errs = append(errs, e.seg.unmap())
	}
	pl.entries = nil
	return errors.Join(errs...)
}

// reuse takes over a pooled segment for c if every member holds it: rank
// 0 proposes its newest (token, epoch, calls), each member answers
// whether it holds that segment in its own rank, and rank 0 tells the
// verdict. A member takes its entry out of the pool while it answers, so
// that no other communicator's set-up takes it meanwhile, and puts it
// back if the verdict is no. It returns the entry, or false if the
// members must make a segment; an error is a message that failed.
func (pl *pool) reuse(c coll.Comm, lay layout) (pooled, bool, error) {
	var offer [24]byte
	var e pooled
	held := false
	if c.Rank() == 0 {
		if e, held = pl.takeNewest(lay); held {
			binary.LittleEndian.PutUint64(offer[0:], e.seg.token())
			binary.LittleEndian.PutUint64(offer[8:], e.epoch)
			binary.LittleEndian.PutUint64(offer[16:], e.calls)
		}
		var errs []error
		for r := 1; r < c.Size(); r++ {
			errs = append(errs, c.Send(offer[:], r, coll.TagShared))
		}
		if err := errors.Join(errs...); err != nil || !held {
			return pl.giveBack(e, held, err)
		}
	} else {
		if err := c.Recv(offer[:], 0, coll.TagShared); err != nil {
			return pooled{}, false, err
		}
		token := binary.LittleEndian.Uint64(offer[0:])
		if token == 0 {
			return pooled{}, false, nil
		}
		e, held = pl.take(token, c.Rank(), binary.LittleEndian.Uint64(offer[8:]), binary.LittleEndian.Uint64(offer[16:]), lay)
	}
	verdict := []byte{0}
	if held {
		verdict[0] = 1
	}
	if c.Rank() == 0 {
		var errs []error
		for r := 1; r < c.Size(); r++ {
			var ok [1]byte
			errs = append(errs, c.Recv(ok[:], r, coll.TagShared))
			verdict[0] &= ok[0]
		}
		for r := 1; r < c.Size(); r++ {
			errs = append(errs, c.Send(verdict, r, coll.TagShared))
		}
		if err := errors.Join(errs...); err != nil {
			return pl.giveBack(e, held, err)
		}
	} else {
		err := c.Send(verdict, 0, coll.TagShared)
		if err == nil {
			err = c.Recv(verdict, 0, coll.TagShared)
		}
		if err != nil {
			return pl.giveBack(e, held, err)
		}
	}
	if verdict[0] == 0 {
		return pl.giveBack(e, held, nil)
	}
	return e, true, nil
}

// giveBack puts e back in the pool if this rank took it, and returns
// reuse's answer that no segment is reused, with err.
func (pl *pool) giveBack(e pooled, held bool, err error) (pooled, bool, error) {
	if held {
		err = errors.Join(err, pl.put(e))
	}
	return pooled{}, false, err
}
