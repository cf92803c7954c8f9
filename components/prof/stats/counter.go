package stats

import (
	"runtime"
	"sync"
	"unsafe"
)

// tally accumulates the calls of one function, or of one call site, in
// clock ticks.
type tally struct {
	Calls, Ticks, Bytes, Min, Max int64
}

// add counts one call that took d ticks and moved n bytes.
func (t *tally) add(d, n int64) {
	if t.Calls == 0 || d < t.Min {
		t.Min = d
	}
	t.Max = max(t.Max, d)
	t.Calls++
	t.Ticks += d
	t.Bytes += n
}

// merge adds u to t.
func (t *tally) merge(u tally) {
	switch {
	case u.Calls == 0:
		return
	case t.Calls == 0:
		*t = u
		return
	}
	t.Min, t.Max = min(t.Min, u.Min), max(t.Max, u.Max)
	t.Calls += u.Calls
	t.Ticks += u.Ticks
	t.Bytes += u.Bytes
}

type peerTally struct{ msgs, bytes int64 }

// shard holds a share of the counts behind a mutex of its own. A call
// takes one lock, two atomic operations, where counting with atomics
// would take about eight (function, site and peer), at some 10 ns each on
// a virtual machine. Calls pick a shard by their goroutine's stack, so
// that goroutines running at once seldom share one.
type shard struct {
	mu        sync.Mutex
	fns       [numFns]tally
	sites     []tally // by site index
	comms     []tally // by communicator slot
	p2p, coll []peerTally
	// recent remembers, per function (modulo its size), the last stack the
	// shard saw and its site: a loop calls each function from one place,
	// and comparing six words costs a tenth of the table's hash and probe.
	recent [16]recentSite
	_      [64]byte // keeps the next shard's mutex off this one's cache line
}

type recentSite struct {
	key siteKey
	st  *site
}

// shards is a power of two of shards.
type shards []shard

func newShards(procs int) shards {
	n := 1
	for n < 2*procs && n < 64 {
		n *= 2
	}
	return make(shards, n)
}

// pick returns the shard of the calling goroutine: a hash of an address
// on its stack. Stacks of running goroutines lie at least a few
// kilobytes apart; a stack that moves as it grows changes shard, which
// costs nothing in correctness.
func (s shards) pick() *shard {
	var here byte
	h := uint64(uintptr(unsafe.Pointer(&here))>>11) * 0x9e3779b97f4a7c15
	return &s[h>>58&uint64(len(s)-1)]
}

func defaultShards() shards { return newShards(runtime.GOMAXPROCS(0)) }

// take returns the shard's counts and empties it, under its lock.
func (sh *shard) take(fns *[numFns]tally, sites []tally, p2p, coll []peerTally, comms []tally) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for i := range sh.fns {
		fns[i].merge(sh.fns[i])
		sh.fns[i] = tally{}
	}
	// A site found after the caller listed them stays for the next phase.
	for i := range min(len(sh.sites), len(sites)) {
		sites[i].merge(sh.sites[i])
		sh.sites[i] = tally{}
	}
	for i := range min(len(sh.comms), len(comms)) {
		comms[i].merge(sh.comms[i])
		sh.comms[i] = tally{}
	}
	addPeers(p2p, sh.p2p)
	addPeers(coll, sh.coll)
	clear(sh.p2p)
	clear(sh.coll)
}

func addPeers(dst, src []peerTally) {
	for i := range min(len(dst), len(src)) {
		dst[i].msgs += src[i].msgs
		dst[i].bytes += src[i].bytes
	}
}
