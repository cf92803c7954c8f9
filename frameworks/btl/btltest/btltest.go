// Package btltest checks that a btl module keeps the contract of
// btl.Module, as testing/fstest does for file systems, and offers the
// pieces a transport's own tests need: a recording Receiver, a Counter
// that keeps nothing, and an in-memory Modex shared by the ranks of a job
// in one process; and, for the tests of the layers above a transport,
// modules that stand in for one: Loopback (goroutines between ranks,
// failures included), Direct (synchronous, allocating nothing) and
// Discard.
//
// A component runs the suite from its tests with a Factory that builds
// one module per rank from the environments the suite prepares:
//
//	func TestContract(t *testing.T) {
//		btltest.Run(t, btltest.Suite{
//			Size: 3,
//			New: btltest.PerRank(func(t testing.TB, env btl.InitEnv) btl.Component {
//				c := &Component{ /* its base */ }
//				if err := btltest.Open(t, c, nil); err != nil { // register params, resolve, open
//					t.Fatal(err)
//				}
//				return c
//			}),
//			Reaches: func(from, to int) bool { return from != to },
//			Kill:    func(rank int, m btl.Module) { m.(*Module).crash() },
//		})
//	}
//
// Each subtest builds a new job with the Factory: AddProcs (the reach
// matches Reaches), Sizes (payloads of 0, 1, EagerLimit and MaxSendSize
// bytes with headers of 1 and btl.MaxHeaderSize bytes arrive whole and in
// order), Headers (0 and MaxHeaderSize+1 bytes are refused), Reuse (a
// fragment arrives as it was sent, though the caller wrote over its
// header and payload once Send or a btl.Poster's Post returned), Concurrent
// (several goroutines per rank keep their order per peer), Place (placed
// payloads land in the Place buffer, never one of the wrong size), Idle
// (a btl.Idler delivers unpolled between Idle and Busy), SingleCopy (a
// btl.SingleCopier's exposed buffers read back exactly, whole and from an
// offset, under distinct tokens), ReadAll (a btl.VectorReader's batch
// equals the reads one by one), DelProcs (then Send fails with
// btl.ErrUnreachable, nobody is reported failed),
// Finalize (then Send fails, Progress does nothing, Finalize again is
// harmless) and FailedPeer (with Kill: the survivor learns by PeerFailed
// or a failing Send, never hangs). Every refused Send's error names the
// peer's rank. The suite calls AddProcs itself,
// finalizes every module when a subtest ends, and drives Progress on
// every module while it waits, so a module that delivers only when
// polled passes. Waits end on a condition; their deadline only guards
// against a hang.
//
// Its parts for payloads in pieces check what a btl.Gatherer (SendFrom),
// a btl.ScatterCopier (ReadScatter, ReadVector) and a btl.VectorSender
// (the Vector parts: payloads in parts, and receivers that place them in
// pieces, VectorReceiver recording what a btl.VectorPlacer is given) add,
// and skip modules without them.
//
// Loopback is an in-memory transport that keeps the contract, for tests
// of the layers above btl (internal/pml's run on it).
package btltest

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// hangGuard bounds every wait: reaching it means the module lost
// something or hangs, never that it was slow on a loaded machine.
const hangGuard = 2 * time.Minute

// Frame is one delivered fragment, copied.
type Frame struct {
	From    int
	Hdr     []byte
	Payload []byte
	Placed  bool
	// Vectored: delivered by DeliverVector (VectorReceiver); Payload is
	// then what the slices PlaceVector gave hold, one after the other,
	// and Placed is set.
	Vectored bool
	// Size is the payload's length as the module told it: len(payload)
	// for Deliver, DeliverVector's size.
	Size int
}

// Receiver is a btl.Receiver that records, in order, copies of what it
// is given. It is safe for concurrent use.
type Receiver struct {
	// PlaceFunc, if set, answers Place; nil receives every payload into
	// the module's buffer.
	PlaceFunc func(from int, hdr []byte, size int) []byte

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every delivery or failure
	frames  []Frame
	failed  map[int][]error
}

// NewReceiver returns an empty Receiver.
func NewReceiver() *Receiver {
	return &Receiver{changed: make(chan struct{}), failed: map[int][]error{}}
}

// Place implements btl.Receiver.
func (r *Receiver) Place(from int, hdr []byte, size int) []byte {
	if r.PlaceFunc == nil {
		return nil
	}
	return r.PlaceFunc(from, hdr, size)
}

// Deliver implements btl.Receiver: it copies hdr and payload, which the
// module may reuse once Deliver returns.
func (r *Receiver) Deliver(from int, hdr, payload []byte, placed bool) {
	r.record(Frame{From: from, Hdr: slices.Clone(hdr), Payload: slices.Clone(payload), Placed: placed, Size: len(payload)})
}

func (r *Receiver) record(f Frame) {
	r.mu.Lock()
	r.frames = append(r.frames, f)
	r.signalLocked()
	r.mu.Unlock()
}

// VectorReceiver is a Receiver that is also a btl.VectorPlacer, for
// modules that read payloads into pieces of the receiver's memory. Its
// PlaceVectorFunc answers PlaceVector; each DeliverVector is recorded as
// a Frame with Vectored set whose Payload is a copy of what the slices
// that PlaceVectorFunc last gave for that peer hold. It is safe for
// concurrent use, with one fragment at a time per peer between
// PlaceVector and DeliverVector, as a module reads one connection per
// peer in order.
type VectorReceiver struct {
	*Receiver
	// PlaceVectorFunc, if set, answers PlaceVector; nil leaves every
	// payload to Place.
	PlaceVectorFunc func(from int, hdr []byte, size int, parts [][]byte) [][]byte

	vmu     sync.Mutex
	placed  map[int][][]byte // per peer, the slices of its fragment in flight
	counted map[int]int      // per peer, how many PlaceVector calls gave slices
}

// NewVectorReceiver returns an empty VectorReceiver.
func NewVectorReceiver() *VectorReceiver {
	return &VectorReceiver{Receiver: NewReceiver(), placed: map[int][][]byte{}, counted: map[int]int{}}
}

// PlaceVector implements btl.VectorPlacer.
func (r *VectorReceiver) PlaceVector(from int, hdr []byte, size int, parts [][]byte) [][]byte {
	if r.PlaceVectorFunc == nil {
		return parts
	}
	n := len(parts)
	parts = r.PlaceVectorFunc(from, hdr, size, parts)
	if len(parts) > n {
		r.vmu.Lock()
		r.placed[from] = slices.Clone(parts[n:])
		r.counted[from]++
		r.vmu.Unlock()
	}
	return parts
}

// DeliverVector implements btl.VectorPlacer.
func (r *VectorReceiver) DeliverVector(from int, hdr []byte, size int) {
	r.vmu.Lock()
	parts := r.placed[from]
	delete(r.placed, from)
	r.vmu.Unlock()
	payload := []byte{}
	for _, p := range parts {
		payload = append(payload, p...)
	}
	r.record(Frame{From: from, Hdr: slices.Clone(hdr), Payload: payload, Placed: true, Vectored: true, Size: size})
}

// Placements is how many times PlaceVector gave slices for fragments
// from peer.
func (r *VectorReceiver) Placements(peer int) int {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	return r.counted[peer]
}

// PeerFailed implements btl.Receiver.
func (r *Receiver) PeerFailed(peer int, err error) {
	r.mu.Lock()
	r.failed[peer] = append(r.failed[peer], err)
	r.signalLocked()
	r.mu.Unlock()
}

func (r *Receiver) signalLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Frames returns the fragments delivered so far, in delivery order.
func (r *Receiver) Frames() []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.frames)
}

// From returns the fragments delivered so far from peer, in order.
func (r *Receiver) From(peer int) []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fs []Frame
	for _, f := range r.frames {
		if f.From == peer {
			fs = append(fs, f)
		}
	}
	return fs
}

// Count is the number of fragments delivered so far.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.frames)
}

// Failures returns every PeerFailed report about peer, in order.
func (r *Receiver) Failures(peer int) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.failed[peer])
}

// FailedPeers returns the peers reported failed, in increasing order.
func (r *Receiver) FailedPeers() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ps []int
	for p := range r.failed {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// WaitFor returns once cond holds. It re-checks cond after every
// delivery or failure report, and after every call of poll, which drives
// the modules (their Progress) and may be nil for modules that deliver
// on their own. It fails t if cond does not hold within a generous
// bound that only guards against a hang.
func (r *Receiver) WaitFor(t testing.TB, what string, poll func(), cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("btltest: %s: still waiting after %v; the module lost fragments or hangs", what, hangGuard)
		}
		if poll != nil {
			poll()
			select {
			case <-ch:
			default:
				time.Sleep(50 * time.Microsecond) // let the module's goroutines run
			}
			continue
		}
		select {
		case <-ch:
		case <-time.After(10 * time.Millisecond): // cond may depend on more than this receiver
		}
	}
}

// WaitCount waits, as WaitFor, until at least n fragments have arrived,
// and returns them.
func (r *Receiver) WaitCount(t testing.TB, n int, poll func()) []Frame {
	t.Helper()
	r.WaitFor(t, fmt.Sprintf("%d fragments", n), poll, func() bool { return r.Count() >= n })
	return r.Frames()
}

// Modex is an in-memory btl.Modex shared by the ranks of a job in one
// process. A Get of a key the rank has not put is an error, as after the
// fence of a real job: put everything before any rank's AddProcs.
type Modex struct {
	mu sync.Mutex
	kv map[string][]byte
}

// NewModex returns an empty Modex.
func NewModex() *Modex { return &Modex{kv: map[string][]byte{}} }

// For returns the Modex as rank sees it: its Put publishes under rank.
func (m *Modex) For(rank int) btl.Modex { return rankModex{m, rank} }

type rankModex struct {
	*Modex
	rank int
}

func (m rankModex) Put(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kv[fmt.Sprint(m.rank, "/", key)] = slices.Clone(value)
	return nil
}

func (m rankModex) Get(_ context.Context, rank int, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.kv[fmt.Sprint(rank, "/", key)]
	if !ok {
		return nil, fmt.Errorf("btltest modex: world rank %d published no %q", rank, key)
	}
	return slices.Clone(v), nil
}

// Host is the hostname every rank of a test job has.
const Host = "btltest-host"

// Envs returns the environments of the ranks of a job of size ranks on
// one host, sharing a Modex, a secret and a session directory, each with
// its own Receiver.
func Envs(t testing.TB, size int) ([]btl.InitEnv, []*Receiver) {
	t.Helper()
	mx := NewModex()
	dir := t.TempDir()
	secret := make([]byte, 32)
	rand.Read(secret)
	envs := make([]btl.InitEnv, size)
	recvs := make([]*Receiver, size)
	for rank := range size {
		recvs[rank] = NewReceiver()
		envs[rank] = btl.InitEnv{
			Rank: rank, Size: size, Hostname: Host, JobID: "btltest-job",
			Secret: secret, Modex: mx.For(rank), Receiver: recvs[rank],
			LocalRank: rank, LocalSize: size, SessionDir: dir,
		}
	}
	return envs, recvs
}

// Procs returns the procs of a job of size ranks made by Envs.
func Procs(size int) []btl.Proc {
	procs := make([]btl.Proc, size)
	for i := range procs {
		procs[i] = btl.Proc{Rank: i, Hostname: Host}
	}
	return procs
}
