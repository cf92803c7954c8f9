package btl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Exclusivity levels, as Open MPI ranks transports: for a peer, the
// reachable module with the highest exclusivity carries its traffic.
const (
	ExclusivityHigh = 65536 // self, shared memory
)

// ErrUnreachable marks a peer that no selected module reaches.
var ErrUnreachable = errors.New("peer unreachable")

// ErrPeerFailed marks a peer whose transport broke: it died or its
// connection was lost.
var ErrPeerFailed = errors.New("peer failed")

// ErrFull is what a Poster's Post returns, itself and unwrapped, when the
// peer has no room for the fragment now: the module took nothing, and the
// caller posts the fragment again later, after polling. A non-blocking
// send must not wait for a receiver that does not poll.
var ErrFull = errors.New("no room for the fragment now")

// Proc describes one rank of the job to a module.
type Proc struct {
	Rank     int // world rank
	Hostname string
}

// Modex is the job-wide key-value exchange: a module publishes its
// addresses at Init and reads its peers' in AddProcs, after a fence.
type Modex interface {
	Put(ctx context.Context, key string, value []byte) error
	Get(ctx context.Context, rank int, key string) ([]byte, error)
}

// Receiver is the upper layer (the point-to-point engine) that modules
// deliver incoming fragments to. Its methods may be called from any
// goroutine, concurrently for different peers, and never block on the
// network: a module's reader may call them directly.
type Receiver interface {
	// Place returns where the payload of an incoming fragment with header
	// hdr should be written, or nil to receive it into the module's own
	// buffer. A module that can read payloads in place asks before reading.
	Place(from int, hdr []byte, size int) []byte
	// Deliver hands over one fragment. placed is true when the payload was
	// written into the slice Place returned. Neither hdr nor payload may be
	// retained after Deliver returns.
	Deliver(from int, hdr, payload []byte, placed bool)
	// PeerFailed reports that the module can no longer reach a peer. err
	// names the peer as Send's does ("world rank N"), and not the module,
	// which the receiver names.
	PeerFailed(peer int, err error)
}

// InitEnv is what a component's Init receives.
type InitEnv struct {
	Rank, Size int    // this process's world rank and the job's size
	Hostname   string // this process's host
	JobID      string
	Secret     []byte // the job's secret: authenticates connections between ranks
	Modex      Modex
	Receiver   Receiver
	// LocalRank and LocalSize place this process among the job's ranks on
	// its host, for node-local transports.
	LocalRank, LocalSize int
	// SessionDir is the job's private directory on this host, removed when
	// the job ends; "" when the process runs without gompirun.
	SessionDir string
	// KeepJobFile records a file that the module made for the job outside
	// the session directory (a segment in a backing directory), so that it
	// is removed however the job ends, even when all of its processes are
	// killed at once. Its name must start with "gompi.<JobID>.". Nil
	// without a session directory.
	KeepJobFile func(path string) error
	// Oversubscribed: this host's ranks outnumber its CPUs, so a module's
	// own waiting loops must give the CPU away rather than spin (a sched_yield, not runtime.Gosched).
	Oversubscribed bool
}

// Module is one instance of a transport: the tcp component makes one for
// the job, the self component one that reaches only its own rank. All
// methods are safe for concurrent use.
type Module interface {
	// Name is the component's name, for messages and the choice of transport per peer.
	Name() string
	// Exclusivity ranks modules: per peer, the highest reachable one wins.
	Exclusivity() int
	// Bandwidth in Mbit/s breaks ties in exclusivity.
	Bandwidth() int
	// EagerLimit is the largest payload the upper layer sends without a
	// rendezvous; MaxSendSize the largest payload of one fragment.
	EagerLimit() int
	MaxSendSize() int
	// AddProcs returns which of procs the module reaches.
	AddProcs(ctx context.Context, procs []Proc) ([]bool, error)
	// DelProcs releases what the module holds for procs (connections,
	// addresses); sending to one of them afterwards is an error until it is
	// added again. Peers see their link end as at Finalize, not as a failure.
	DelProcs(ctx context.Context, procs []Proc) error
	// Send transmits hdr and payload to peer as one fragment. It may block
	// until the fragment is handed to the transport; hdr and payload may be
	// reused once it returns. It must not be called from inside Receiver
	// methods. Its error names peer as "world rank N", and the layers
	// above add nothing of theirs about the peer; like every error of a
	// module, it leaves out the component's name, which the caller adds.
	Send(ctx context.Context, peer int, hdr, payload []byte) error
	// Progress polls the transport; it returns how many events it handled.
	// Modules that receive from their own goroutines return 0.
	Progress() int
	// Finalize closes the module; connections close without reporting
	// peers as failed.
	Finalize() error
}

// SmallHeaderSize is the length of the header a SmallSender takes.
const SmallHeaderSize = 16

// SmallHeader is a header of SmallHeaderSize bytes as two little-endian
// words, which a call passes in registers. A [16]byte argument goes
// through memory, and the copy there loaded 16 bytes at once from the two
// 8-byte stores that had just built it, which the processor cannot
// forward: the stall was two fifths of the engine's own time in an eager
// Isend.
type SmallHeader struct{ Lo, Hi uint64 }

// Put writes h into b, which holds at least SmallHeaderSize bytes, with
// two 8-byte stores: a reader that loads it 8 bytes at a time gets them
// forwarded.
func (h SmallHeader) Put(b []byte) {
	binary.LittleEndian.PutUint64(b, h.Lo)
	binary.LittleEndian.PutUint64(b[8:], h.Hi)
}

// SmallSender is implemented by modules that take a short header by value,
// for a blocking send of a small message: a header in a slice, passed
// through the Module interface, has to live on the heap or in a pool,
// and the pool cost a blocking 8-byte send over sm a tenth of its
// software time.
type SmallSender interface {
	// SendSmall is Send with a header of SmallHeaderSize bytes and no
	// context.
	SendSmall(peer int, hdr SmallHeader, payload []byte) error
}

// SmallPoster is SmallSender for a Poster's Post: a non-blocking eager
// send then needs no request to keep its header in while the module
// copies it.
type SmallPoster interface {
	// PostSmall is Post with a header of SmallHeaderSize bytes and no
	// context; it may return ErrFull as Post does.
	PostSmall(peer int, hdr SmallHeader, payload []byte) error
}

// Poster is implemented by modules that can write several small
// fragments to a peer in one system call. The upper layer posts the
// fragments of sends it does not wait on; a blocking send uses Send.
type Poster interface {
	// Post is Send, except that the module may copy the fragment and hold
	// it back, to be written after the fragments already held and before
	// any later one to the same peer. A module may write the first Post
	// after a Flush at once: the sender of a lone fragment waits on it
	// next. A held fragment goes out no later
	// than the module's next Progress or its next Send to that peer, or
	// shortly after polling stops. hdr and payload may be reused once Post
	// returns. Where Send would wait for room, Post may return ErrFull
	// instead.
	Post(ctx context.Context, peer int, hdr, payload []byte) error
	// Flush writes the fragments held back for peer now.
	Flush(peer int)
}

// Idler is implemented by modules that deliver only when polled, such as
// shared memory. A rank that stops polling to sleep calls Idle first: the
// module then delivers on its own, woken by its peers, until Busy says
// that polling resumes. Calls nest: n Idles are undone by n Busys.
type Idler interface {
	Idle()
	Busy()
}

// Dozer is implemented by modules that can put the calling thread to sleep
// until a peer writes to this rank, for ranks that outnumber their host's
// CPUs: there, a waiting rank that yields is soon given the CPU back, by
// ranks that have nothing to do either, and the one rank with work waits
// for all of them. The thread keeps its Go processor while it sleeps (a
// raw system call): told of the call, the runtime would hand the processor
// to another thread and take it back after, a thread wake-up each way.
type Dozer interface {
	// Doze announces that this rank may sleep, looks once more whether a
	// peer wrote to it (delivering is left to the caller's next poll),
	// calls ready, and sleeps unless either found something. It returns
	// when a peer writes to this rank, Wake is called or d passes; early
	// returns are allowed. What ready reads must be written before the
	// Wake that follows it.
	Doze(d time.Duration, ready func() bool)
	// Wake ends the Dozes of this rank's threads, from another goroutine.
	Wake()
}

// Watcher is implemented by modules that deliver only when polled and can
// name the words of memory outside Go that a peer's next fragment to this
// rank changes. Watch calls add with each word and its value now, and
// reports false, having added nothing useful, if a poll could deliver
// something or must send something already (a fragment arrived, a send
// was held back). While every word keeps its value, a poll of the module
// would find nothing: the C library answers a failed MPI_Test again
// without entering Go. add returns false when it can take no more words.
type Watcher interface {
	Watch(add func(w *atomic.Uint64, v uint64) bool) bool
}

// TrySender is implemented by modules that can write a fragment at once
// or not at all: from inside a delivery, where Send could wait for a lock
// or for room that only the caller's own progress would free.
type TrySender interface {
	// TrySend is Send if the fragment can go now; false, having sent
	// nothing, if it cannot.
	TrySend(peer int, hdr, payload []byte) bool
}

// Inline is implemented by modules whose Send hands the fragment to the
// receiver before it returns, in the sender's goroutine (self): polling
// them finds nothing, and a rank waiting on them has nothing to poll.
type Inline interface {
	DeliversInline()
}

// SingleCopier is implemented by modules that can move a large payload
// with one copy: the receiver reads it straight from the sender's memory
// (cross-memory attach for shared memory).
type SingleCopier interface {
	// SingleCopyMin is the smallest payload worth a single copy to peer;
	// 0 means none to that peer, as when peer may not read this rank's
	// memory (it is the reader's permission that counts).
	SingleCopyMin(peer int) int
	// Expose returns a token by which peer's module can Read buf. buf must
	// stay unchanged and reachable until peer reports that it has read it.
	Expose(peer int, buf []byte) uint64
	// Read copies len(dst) bytes at offset off of the buffer that peer
	// exposed as token into dst. An error means the copy could not be
	// made (the kernel refused it, or the peer is gone); the caller then
	// falls back to having the payload sent. The caller keeps off and
	// len(dst) within the exposed buffer and reads only live tokens; a
	// module need not detect otherwise (sm's tokens are addresses).
	Read(peer int, token uint64, off int, dst []byte) error
}

// BlockingCopier is a SingleCopier whose payloads above the eager limit
// may also stream in fragments through its own memory when the sender is
// there to write them: a blocking send waits anyway. Which way is faster
// depends on the machine and can change while a job runs, so the engine
// times its receives (Took) and the module chooses the way of each
// blocking send from them. A non-blocking send keeps SingleCopyMin, so
// that the receiver needs no help from a sender that computes meanwhile.
type BlockingCopier interface {
	// SingleCopyBlocking reports whether a send of size bytes to peer, at
	// least SingleCopyMin(peer), whose sender waits for it at once, is
	// read by the receiver rather than streamed.
	SingleCopyBlocking(peer, size int) bool
	// Took tells the module that a rendezvous receive of size bytes from
	// peer, matched on its announcement's arrival, took d to its last
	// byte: read by single copy if read, from the match; else streamed,
	// from when the sender began to write the announcement, which came
	// with the first fragment.
	Took(peer, size int, read bool, d time.Duration)
}

// PeerFragmenter is a module whose fragments to some peers move faster
// when smaller than MaxSendSize (tcp's, over a connection whose congestion
// control paces the sender).
type PeerFragmenter interface {
	// MaxSendSizeTo is MaxSendSize for fragments to peer: at most it.
	MaxSendSizeTo(peer int) int
}

// VectorReader is a SingleCopier that reads several buffers of one peer
// at once: cross-memory attach costs about 2 us a system call before it
// copies a byte, as much as copying 32 KiB.
type VectorReader interface {
	SingleCopier
	// ReadAll copies, for each i, len(dsts[i]) bytes from the start of
	// the buffer that peer exposed as tokens[i] into dsts[i]. An error
	// means some were not copied; the caller then reads them one by one.
	ReadAll(peer int, tokens []uint64, dsts [][]byte) error
}

// Source is a payload that does not lie in one slice, such as the data of
// a non-contiguous datatype: Pack copies it out piece by piece.
type Source interface {
	// Pack copies the payload's bytes [off, off+len(dst)) into dst.
	Pack(dst []byte, off int)
}

// Gatherer is implemented by modules that copy a payload into memory of
// their own before it leaves (a shared-memory ring): handed a Source, they
// pack it there, so that a non-contiguous message is copied once on its
// way rather than packed first and copied again.
type Gatherer interface {
	// SendFrom is Send, or Post when hold is set and the module is a
	// Poster (which may return ErrFull), of the n bytes of src from off, n
	// at most MaxSendSize.
	SendFrom(ctx context.Context, peer int, hdr []byte, src Source, off, n int, hold bool) error
}

// VectorSender is implemented by modules that send a payload gathered
// from several slices with one system call (writev): a message whose
// datatype's blocks are large then leaves from where it lies.
type VectorSender interface {
	// SendVector is Send with the payload the concatenation of parts, at
	// most MaxSendSize bytes in all; parts may be reused once it returns.
	SendVector(ctx context.Context, peer int, hdr []byte, parts [][]byte) error
}

// VectorPlacer is implemented by receivers (the engine) that may want an
// incoming payload scattered over several slices of their own memory. A
// module that reads payloads in place (readv) asks it before Place.
type VectorPlacer interface {
	// PlaceVector appends to parts the slices that the payload of a
	// fragment with header hdr belongs in, in order, size bytes in all; it
	// returns parts unchanged to leave the payload to Place.
	PlaceVector(from int, hdr []byte, size int, parts [][]byte) [][]byte
	// DeliverVector hands over a fragment whose size bytes of payload were
	// written into the slices PlaceVector gave, instead of Deliver.
	DeliverVector(from int, hdr []byte, size int)
}

// ScatterCopier is a SingleCopier whose peers read with one cross-memory
// attach call per batch of pieces, from a buffer or a list of buffers
// into a list of their own: a non-contiguous message of large blocks then
// moves with one copy, from where it lies to where it belongs.
type ScatterCopier interface {
	SingleCopier
	// ExposeVector returns a token by which peer's module can ReadVector
	// the concatenation of bufs, and a value that the caller keeps
	// reachable, with the buffers bufs lists unchanged, until peer
	// reports that it has read. The list itself may be reused at once.
	ExposeVector(peer int, bufs [][]byte) (token uint64, keep any)
	// ReadScatter copies the first bytes of the buffer that peer exposed
	// (Expose) as token into dsts, in order, filling each.
	ReadScatter(peer int, token uint64, dsts [][]byte) error
	// ReadVector is ReadScatter from buffers that peer exposed with
	// ExposeVector: the first bytes of their concatenation.
	ReadVector(peer int, token uint64, dsts [][]byte) error
}

// Component is what a btl component implements, beyond the MCA lifecycle.
type Component interface {
	mcaComponent
	// Init creates the component's modules for this process and publishes
	// what peers need to reach them. Returning no module and no error means
	// the component has nothing to offer here.
	Init(ctx context.Context, env InitEnv) ([]Module, error)
}

// Decliner is a Component that can say why its Init returned no module,
// for the error about a peer that no module reaches.
type Decliner interface {
	// Declined says why, as a phrase: "no interface matches ...".
	Declined() string
}

// MaxHeaderSize bounds the upper layer's header in one fragment.
const MaxHeaderSize = 256

// CheckHeader validates the arguments of Send, for modules.
func CheckHeader(hdr []byte) error {
	if len(hdr) == 0 || len(hdr) > MaxHeaderSize {
		return fmt.Errorf("btl: header of %d bytes (must be 1-%d)", len(hdr), MaxHeaderSize)
	}
	return nil
}
