// Package pml is the point-to-point messaging engine: matching of incoming
// messages to posted receives on (context, source, tag) in MPI's
// non-overtaking order, the unexpected queue, and the eager and rendezvous
// protocols over the btl modules. It knows world ranks only; communicators
// translate above it and give each message its context id, which keeps
// communicators' traffic apart.
//
// # Header
//
// Every fragment starts with the engine's 40-byte little-endian header:
// version, type, flags, context, source, tag, a byte count, a send request
// id, and a receive request id or transport token. The byte count and the
// last word mean one thing per type; the header struct names each meaning
// as a field of its own (size, accepted, offset; rreq, token), mapped to
// the shared words only when encoded and decoded. An eager fragment carries
// only the first MatchHeaderSize (16) bytes, through the tag: its size is
// its payload's and it needs no request ids, and the 24 bytes spared put a
// message of up to 32 bytes in one cache line of btl sm.
//
//	type        payload                      byte count                last word
//	match       the whole message (eager)    (not carried)             (not carried)
//	RTS         the first fragment, up to    the message's size        with single copy, the
//	            the eager limit (none with                             token of the sender's
//	            single copy)                                           buffer
//	CTS         none                         bytes the receiver takes  the receive request
//	DATA        a piece of the message       the piece's offset        the receive request
//	FIN         none                         bytes the receiver read   unused
//	                                         itself (single copy)
//	CANCEL      none: the sender asks the receiver to drop its unmatched message
//	CANCEL-ACK  none: the answer; a flag says whether the message was dropped
//
// # Matching
//
// A receive may use AnySource and AnyTag. Each context has two queues, both
// in arrival order: posted receives and unexpected messages. An incoming
// match or RTS fragment takes the first posted receive that fits, else
// joins the unexpected queue; a new receive takes the first unexpected
// message that fits, else joins the posted queue. One sender's fragments
// reach a receiver in order, so taking the first fit gives MPI's
// non-overtaking rule. Probe scans the unexpected queue without removing
// anything. A matched probe (Mprobe, Improbe) removes the message it finds
// and hands it back as a Matched, which only its own receive (Mrecv,
// StartMrecv) takes: no other receive or probe sees it, and a sender's
// cancel finds it matched. A queue is a slice with a head index: taking the first entry,
// the usual match, moves nothing, and the array is kept (moved back when
// its front half is free), so a rank that posts hundreds of receives per
// window allocates none.
//
// A context whose communicator's hints rule out AnySource or AnyTag
// (SetMatchKeys) splits its queues into buckets by source, tag or both
// once they hold more than a few entries, so that a message is checked
// only against receives that could take it; a wildcard merges them back.
//
// # Eager and rendezvous
//
// A send of at most the eager limit of the module that reaches the peer,
// not synchronous, goes as one match fragment from the caller's goroutine
// and completes when the transport has taken the bytes. An eager message
// that arrives before its receive is copied into the unexpected queue,
// since the transport reuses its buffer; the queue's entries and buffers
// are pooled, because when ranks outnumber CPUs most messages of a
// collective arrive before their receive, and a fresh buffer for each made
// every rank collect garbage every few tens of milliseconds.
//
// A larger send, or any synchronous send (Ssend, Issend, whose completion
// must prove a match), sends an RTS with the size and, as Open MPI's ob1
// does, the first fragment, and keeps its buffer. An unexpected RTS is kept
// with its first fragment only: large unexpected messages are never
// buffered. On a match the receiver accepts min(size, len(buffer)) bytes,
// answers CTS and copies what came with the RTS; the sender sends the rest
// of the accepted bytes as DATA fragments of at most the module's
// MaxSendSize, and completes. The receiver places each piece at its offset
// and completes when all accepted bytes have arrived. The CTS goes before
// that first copy, so that the sender writes the next fragment meanwhile,
// where the receiver may send at that point (below); to the peers of such
// a module (btl.TrySender) the fragments are a quarter of the message,
// from 16 KiB up, so that the two copies overlap from the first.
//
// A non-blocking send whose fragment (eager, or the RTS) finds the
// transport full (btl.ErrFull: a peer's ring that its rank does not poll)
// stalls rather than waits: it returns pending, and the engine's polls
// post it again, in order per peer, before any later send to that peer
// that MPI orders after it. Waiters do not sleep while sends stall, and
// Finalize polls until none does. A stalled send cancels at once.
//
// A receive never writes past its buffer: an eager payload is copied up to
// the buffer's length, a rendezvous accepts only what fits, and DATA
// outside the accepted range is dropped and logged. The receive reports
// the message's full size, which pmpi turns into ErrTruncate; the sender
// is not told.
//
// # Single copy
//
// When the module that reaches the peer implements btl.SingleCopier (sm
// with cross-memory attach) and the message is at least its SingleCopyMin
// (and, for a blocking send that is not half of an exchange,
// SendInExchange, the module's SingleCopyBlocking says so,
// btl.BlockingCopier), the RTS carries a flag and the module's token
// for the sender's buffer; a blocking send that the module streams
// instead carries the time its sender began to write the RTS, and the
// receiver tells the module how long each rendezvous receive matched on
// arrival took, either way (Took), from which it chooses the way of
// blocking sends.
// On a match the receiver reads the accepted bytes straight into the
// receive buffer with the module's Read and answers FIN; the sender's
// request keeps its buffer referenced until then. If the read fails the
// receiver answers with an ordinary CTS: single copy never makes a message
// fail. The reads one poll matches are made after it, and when the module
// implements btl.VectorReader the consecutive ones from one peer, up to
// 256 KiB together, go in one ReadAll with their FINs leaving together:
// each process_vm_readv costs about 2 us before it copies anything, and a
// window of messages just above the single-copy threshold moves about
// twice the bytes batched.
//
// # Layouts
//
// A message whose data is not one slice (a non-contiguous datatype's)
// comes as a Layout, which packs and unpacks any range of its bytes and
// names the blocks that hold them. Nothing packs the whole message first:
// each fragment is packed as it leaves, straight into the module's memory
// where the module is a btl.Gatherer (sm's ring) or else into a pooled
// chunk, and unpacked from the fragment as it arrives, so that on two
// cores the sender packs the next fragment while the receiver unpacks the
// last. A layout whose blocks average vectorMinBlock or more moves where
// it lies instead: written with the module's SendVector (tcp's writev)
// and read into its blocks through PlaceVector (readv); over single copy
// its blocks are exposed with ExposeVector and read with ReadVector, and
// a receive into long blocks reads with ReadScatter. A single-copy read
// into a layout of short blocks goes through a chunk of readChunk bytes at
// a time, unpacked while it is in the cache.
//
// # Receivers never block
//
// Transports deliver fragments through btl.Receiver (Place, Deliver,
// PeerFailed), from a polling waiter or from their reader goroutines.
// These methods take the engine's lock briefly and never wait to send: a
// CTS, or the DATA of a rendezvous, goes from a background goroutine, since
// a reader that wrote to its peer could block while that peer's reader
// blocks writing back. Only a CTS that the module writes at once or not
// at all (btl.TrySender) goes from the delivery itself. Drain waits for
// the background goroutines. Before reading a DATA payload a transport
// calls Place, which returns the slice of the receive buffer where the
// payload belongs, and reads it there.
//
// # Waiting drives progress
//
// Wait, WaitAny and Probe poll the transports themselves, as Open MPI's
// opal_progress does, instead of parking until another goroutine wakes
// them: a thread wake-up costs about 28 us on this machine kind, more than
// a tcp round trip. A waiter that finds nothing polls without yielding for
// mpi_poll_busy_us, then yields the CPU between polls until
// mpi_poll_sleep_ms, then sleeps until a request completes or a message
// arrives, and lets the transports progress on their own (tcp's readers
// deliver; modules that deliver only when polled are told through
// btl.Idler to wake on their own). The yield (lowlevel.Yield) is a raw
// sched_yield: through
// the Go scheduler the runtime hands the rank's P to another thread, and
// taking it back costs a thread wake-up. When a host's ranks outnumber its
// CPUs (mpi_yield_when_idle=auto) a waiter yields from its first poll, since
// a spinning rank would hold up the one it waits for. While background
// transfers run, the waiter also yields to the Go scheduler every poll so
// that with one P they are not starved. Test and Iprobe poll once.
//
// A waiter that yields at once and has found nothing for mpi_poll_doze_us
// dozes between polls instead (btl.Routes.Doze, when sm is the only polled
// module): with 16 ranks on 2 CPUs a rank that yields gets the CPU back
// only after every other rank on its CPU has polled and yielded for
// nothing. The doze holds the rank's P, so it is bounded: before each doze
// the waiter calls runtime.Gosched, and if that took more than 100 us it
// yields instead this time; a doze lasts 2 ms at most; a rank with
// background transfers in flight does not doze; and the engine wakes a
// dozing thread (btl.Dozer.Wake) whenever a request completes or a message
// arrives through another goroutine, or a background transfer starts.
// Shorter thresholds woke ranks whose wait was about to end, and a futex
// wake-up costs more than the yields it saves; ranks that each have a CPU
// never doze.
//
// # Requests
//
// The engine's Request lives inside pmpi's (PostSend and StartRecv fill
// it), one cached object per call rather than two. A send that starts and
// completes in one call completes with plain stores: nobody can wait on it
// before the call returns. When the module takes a posted fragment's header
// by value (btl.SmallPoster), PostEager hands it an eager message with no
// engine request at all; Flush writes what a btl.Poster holds back.
//
// # Peer failure and cancel
//
// When a transport reports a peer failed, the engine fails every pending
// request that involves it, in every context: posted receives from the
// peer and from AnySource, matched rendezvous receives from it, and
// rendezvous sends to it that wait for a CTS. Later sends, receives and
// probes naming the peer fail at once. The error wraps btl.ErrPeerFailed.
// After Finalizing, peers disconnecting is not a failure.
//
// A receive still in the posted queue is cancelled at once and completes
// with Cancelled set. A rendezvous send that waits for its CTS or FIN sends
// CANCEL; the receiver removes the matching RTS from its unexpected queue
// if it is still there and answers whether it did. Fragments of one pair
// arrive in order, so the RTS is there before the CANCEL: unmatched (then
// dropped, and the send completes with Cancelled set) or matched (then the
// send goes on and completes normally). The receiver answers from its
// progress, so the Wait on a cancelled send returns once the receiver
// makes an MPI call, or at once over tcp, whose readers deliver. A send to
// a peer that has failed has nothing to drop.
package pml
