package stats

import (
	"math"
	"sync/atomic"
)

// counter accumulates the calls of one function, or of one call site,
// with atomics, so that calls from any number of goroutines are each
// counted once without a lock. It fills a cache line of its own, so that
// two functions called at once from two cores do not share one.
type counter struct {
	calls atomic.Int64
	ticks atomic.Int64 // time inside the calls, in clock ticks
	bytes atomic.Int64
	min   atomic.Int64 // math.MaxInt64 while no call is counted
	max   atomic.Int64
	_     [24]byte
}

// start readies an empty counter: no minimum yet.
func (c *counter) start() { c.min.Store(math.MaxInt64) }

// add counts one call that took d ticks and moved n bytes. The extremes
// cost a load each once they settle: a compare-and-swap only when a call
// sets a new one.
func (c *counter) add(d, n int64) {
	c.calls.Add(1)
	c.ticks.Add(d)
	if n != 0 {
		c.bytes.Add(n)
	}
	for v := c.min.Load(); d < v && !c.min.CompareAndSwap(v, d); v = c.min.Load() {
	}
	for v := c.max.Load(); d > v && !c.max.CompareAndSwap(v, d); v = c.max.Load() {
	}
}

// tally is a counter's contents at one moment, in ticks.
type tally struct {
	Calls, Ticks, Bytes, Min, Max int64
}

// take returns what c holds and empties it: the end of a phase. A call
// that another goroutine counts meanwhile lands in this phase or the
// next, in part in each at worst.
func (c *counter) take() tally {
	t := tally{
		Calls: c.calls.Swap(0),
		Ticks: c.ticks.Swap(0),
		Bytes: c.bytes.Swap(0),
		Min:   c.min.Swap(math.MaxInt64),
		Max:   c.max.Swap(0),
	}
	if t.Calls == 0 {
		t.Min, t.Max = 0, 0
	}
	return t
}

// peer counts the messages and bytes one rank sends to another.
type peer struct {
	msgs  atomic.Int64
	bytes atomic.Int64
}

func (p *peer) add(n int64) {
	p.msgs.Add(1)
	p.bytes.Add(n)
}
