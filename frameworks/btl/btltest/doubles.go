package btltest

import (
	"context"
	"errors"
	"sync"

	"github.com/gompi/gompi/frameworks/btl"
)

// Counter is a btl.Receiver that counts what it is given and keeps none
// of it, so that testing.AllocsPerRun sees only the module's allocations.
// It is safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Place implements btl.Receiver: payloads go in the module's buffer.
func (c *Counter) Place(int, []byte, int) []byte { return nil }

// Deliver implements btl.Receiver.
func (c *Counter) Deliver(int, []byte, []byte, bool) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// PeerFailed implements btl.Receiver.
func (c *Counter) PeerFailed(int, error) {}

// Count returns the number of fragments delivered so far.
func (c *Counter) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Discard is a module to every peer that drops what it is sent, for
// benchmarks of what lies above a transport, and to embed in a module
// that records how it is used. For returns it for every peer, so that it
// also serves as a table of routes.
type Discard struct{}

func (Discard) For(int) btl.Module                                   { return Discard{} }
func (Discard) Progress() int                                        { return 0 }
func (Discard) Name() string                                         { return "discard" }
func (Discard) Exclusivity() int                                     { return 1 }
func (Discard) Bandwidth() int                                       { return 1 }
func (Discard) EagerLimit() int                                      { return 1 << 20 }
func (Discard) MaxSendSize() int                                     { return 1 << 20 }
func (Discard) Finalize() error                                      { return nil }
func (Discard) DelProcs(context.Context, []btl.Proc) error           { return nil }
func (Discard) AddProcs(context.Context, []btl.Proc) ([]bool, error) { return nil, nil }
func (Discard) Send(context.Context, int, []byte, []byte) error      { return nil }

// Direct is a module that hands each fragment, uncopied and before Send
// returns, to the receiver To as coming from rank From, as btl self does
// within a process: a transport that costs nothing and allocates nothing,
// for allocation counts and benchmarks of the layers above. For returns
// it for every peer.
type Direct struct {
	To    btl.Receiver
	From  int
	Eager int // its eager limit; fragments stay under 1 MiB
}

func (d *Direct) For(int) btl.Module                         { return d }
func (d *Direct) Progress() int                              { return 0 }
func (d *Direct) Name() string                               { return "direct" }
func (d *Direct) Exclusivity() int                           { return 1 }
func (d *Direct) Bandwidth() int                             { return 1 }
func (d *Direct) EagerLimit() int                            { return d.Eager }
func (d *Direct) MaxSendSize() int                           { return 1 << 20 }
func (d *Direct) Finalize() error                            { return nil }
func (d *Direct) DelProcs(context.Context, []btl.Proc) error { return nil }

// AddProcs implements btl.Module; a Direct is built joined to its peer.
func (d *Direct) AddProcs(context.Context, []btl.Proc) ([]bool, error) {
	return nil, errors.New("btltest: a Direct module is joined to its receiver when built")
}

// Send implements btl.Module.
func (d *Direct) Send(_ context.Context, _ int, hdr, payload []byte) error {
	d.To.Deliver(d.From, hdr, payload, false)
	return nil
}
