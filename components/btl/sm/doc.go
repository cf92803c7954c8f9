// Package sm is the btl component that moves bytes between ranks on the
// same host through shared memory (exclusivity 65535: above tcp, below
// self). It carries every pair of ranks on one host, and offers no module
// when a rank is alone on its host.
//
// Each ordered pair of local ranks has a lock-free ring in a segment that
// the host's ranks share; a fragment is copied into the receiver's ring and
// out of it again when the receiver polls. Large messages skip the rings:
// the receiver reads them straight from the sender's memory with
// cross-memory attach, the sender helping with the copy when each rank has
// a CPU.
//
// # The segment
//
// The host's first local rank creates one file per job,
// <btl_sm_backing_directory>/gompi.<job>.sm (/dev/shm; the job's session
// directory when the backing directory refuses it), with O_EXCL, reserves
// its memory with fallocate (so a full tmpfs is an error at Init, not a
// SIGBUS later) and publishes its path through the modex. Every local rank
// maps it in AddProcs and adds one to a counter in the header; the rank
// that brings the counter to the number of local ranks removes the file's
// name. From then on the memory lives only as long as some rank maps it:
// nothing is left in /dev/shm however the job ends, SIGKILL of every rank
// included. A segment that exists before the job is refused, and one whose
// magic, layout version, job id or local size differ is refused with what
// differs. gompirun, and a rank that outlives it, also remove
// gompi.<job>.* at the end.
//
// The layout: a 4 KiB header (magic, layout version, local size, ring size,
// job id, attach counter); per local rank three cache lines (its wake-up
// word, its count of sleeping threads, its pid and state); a table of one
// word per ordered pair of local ranks saying whether the first may read
// the second's memory; a line per ordered pair in which the two share out
// one large copy (below); then one ring per ordered pair: a line holding
// the consumer's head, then btl_sm_ring_size bytes of records. Every word
// that one process writes and another reads has a cache line of its own,
// so a producer's stores never take the consumer's line away from it.
//
// # Records
//
// A record is a 16-byte header (the record's end offset, upper-header
// length, kind, seen, payload length), the engine's header and the payload,
// padded to a cache line. Besides fragments and pads, a help record (an
// 8-byte header with a copy's number, no payload) goes from a large
// message's receiver to its sender, asking it to help with the copy; the
// sender's sm answers it itself and never hands it to the engine. A record
// never wraps: when it does not fit before the end of the ring, a pad
// record fills the end. Offsets count bytes since the job began, so full
// and empty need no extra flag.
//
// A record publishes itself. There is no shared tail: the consumer polls
// the first word of the next record, which the producer stores last,
// holding the record's end offset. A message of up to 32 bytes is one
// cache line and costs one line transfer from sender to receiver; with a
// shared tail counter it costs two (the counter's line, then the record's),
// and the transport's round trip is about twice as long. The price is that
// the consumer must never take an earlier lap's payload for an end offset:
// before publishing a record the producer makes sure that the first word
// where the record ends (and, after a pad, where it starts) is zero. After
// a small record sent at once (at most eight lines) it zeroes those words
// 4 KiB ahead at a time, since each zeroed line is fetched from the
// consumer's cache and the publication waits for the fetch. After a larger
// record it zeroes only the line where the next record starts: that fetch
// goes along with the record's own lines, and most of a 4 KiB batch would
// be written over by the next large record anyway. A record that Post
// holds back for a batch also zeroes only that line, and prefetches the
// next 2 KiB of the ring for writing (PREFETCHW): zero stores that wait
// for their lines fill the store buffer and stall every later store of the
// sender, where a prefetch does not wait (a window of 256 B-16 KiB moves
// 1.1-1.2 times the bytes; in a ping-pong the same prefetches cost a tenth,
// so only batches make them). One line of the ring always stays free for
// that zero. Lines inside a record are left alone: no record starts there,
// and having the consumer zero them halved the speed of 16 KiB fragments,
// since the producer then fetched every line back before writing it.
//
// # Prefetches
//
// A message of 33 bytes or more fills more than one line, which the
// consumer would fetch only once the first line's word said the record was
// there: two transfers in a row. While it polls, the consumer also
// prefetches the lines that the last record from that peer filled after
// its first, if there were at most four, so they come with the first
// (64-256 byte latency down by a fifth). Prefetching four lines at every
// poll whatever the sizes cost 1-4 KiB messages 3-6 %, since a sender
// writing a large record loses its lines to the prefetches.
//
// A poller that finds a record from a peer also prefetches for writing the
// lines where its own next record to that peer will go, as many as its last
// record to that peer took if at most five (the producer leaves that hint
// in a word of its own, producer.next, with a release store). In a
// ping-pong the rank that just published a record polls the line where the
// answer will start, so that line sits in its cache, and the answering
// rank's first store to it would wait for a transfer before the poller
// fetches it again. The prefetch runs while the engine matches and copies
// the message, so only the poller's fetch is left: 8-byte latency is
// 0.35-0.37 us with it and 0.50-0.53 without when the two CPUs are far
// apart, and unchanged when they are close. It is a hint: a stale one
// costs at most a wasted fetch. Records of six lines or more get none,
// since the consumer's own prefetches of those lines fight the producer's.
//
// In an exchange (Sendrecv, a pairwise step of a collective) the two
// records cross: each rank finds the other's while that one is about to
// read its own, and then looks at the line after it for a second record.
// A prefetch before delivering takes that line just before the peer's look
// takes it back, and the line crosses twice more. So each record carries
// where its producer had read the other ring up to when it wrote it (seen,
// in lines modulo 256): a record that answers all of this rank's gets the
// prefetch before delivering, a crossed one after, once the peer has
// looked. A 0-byte Sendrecv on 2 ranks with far CPUs: 0.41-0.49 us against
// 0.64-0.73 with the prefetch always first (near CPUs: 0.23-0.28 against
// 0.21-0.24); a ping-pong unchanged.
//
// For a record of many lines, the producer prefetches for writing every
// line past the first before it writes, and the consumer prefetches every
// line of a record longer than the ones above before the engine copies it
// out, so the lines move together rather than one transfer after another.
// Payloads of shm.WriterMin (3 KiB) or more are copied by shm.Writer, the
// timed choice among Go's copy, a string copy and non-temporal stores (see
// package shm), which also weighs the consumer's time: a timed copy's mark
// rides in its record's kind byte, and the consumer times the record's
// delivery into the ring's shm.ReadCosts. The record's first line is
// written last, after the rest of the payload: the consumer polls that
// line, and each of its loads would take the line away from a producer
// still writing it. With copies this cheap a message goes at once up to
// the single-copy threshold (the eager limit is 63 KiB): 32 KiB takes a
// third of the time at once that a single-copy read takes.
//
// # Memory ordering
//
// A ring has one producer (the sending rank; its goroutines take turns
// through an atomic flag) and one consumer (the receiving rank; one poller
// at a time, through another flag). The producer writes a record (and the
// zeros ahead of it) with ordinary stores and publishes it by an atomic
// store of its first word; the consumer's atomic load of that word comes
// before its reads of the record, so it never sees a record half written,
// and a word is either zero, an earlier lap's end offset (not above head:
// not ready) or a complete record's. The consumer frees records by a
// release store of head after the engine's Deliver returns, once per 16
// records and at the end of a drain. The producer loads head before it
// writes over that space, and only when its cached copy says the ring is
// full.
//
// Go's atomic store is sequentially consistent: on amd64 an XCHG, which
// waits until every earlier store of the processor has reached its cache,
// here the record's lines, which the receiver read last. The stores that
// need only release ordering are plain stores on amd64
// (lowlevel.StoreRelease64: x86 keeps a processor's stores in order, and the
// compiler moves no memory access across a call to assembly): the end of
// the ring's send and drain flags, head, and the first words of a batch's
// records but the one the consumer waits on, which is published last.
// Elsewhere, and under the race detector, they are atomic stores. A window
// of 64 small Posts costs 39-87 ns a message this way and 119-160 ns with
// XCHG (BenchmarkWindow).
//
// # Windows
//
// Send publishes a record at once. Post (btl.Poster, which the engine uses
// for the eager fragment or RTS of a non-blocking send) leaves up to 32 records
// staged, their first words still zero, published last-first by the
// rank's next poll, a Send or Flush to that peer, a full batch, a ring
// with no room, DelProcs, Finalize, or a 200 us timer for a rank that
// leaves MPI alone. Last-first because the consumer waits on the first
// record's word: the whole batch becomes visible at once, and only that
// line moves while the sender waits for it. The first Post to a peer after
// a Flush to it is published at once, as Send is: a lone non-blocking send
// and its Wait (a ping-pong, a halo exchange) gain nothing from holding
// it, and a held record's line moves twice. No mutex, system call or
// allocation is on the path: a send is a compare-and-swap, a copy and a
// store; a poll is one load per local peer (and one of a counter of staged
// peers).
//
// A Send whose ring is full keeps polling its own rings while it waits
// (two ranks that fill each other's rings would otherwise wait for each
// other for ever), yields after btl_sm_poll_spins tries (at once when
// oversubscribed), and every btl_sm_liveness_interval checks that the
// receiver still lives. A Post does not wait for a receiver that is not
// polling: it retries while the ring's head moves, at most
// btl_sm_poll_spins tries without it moving (none when oversubscribed),
// then returns btl.ErrFull, and the engine stalls the send until a later
// poll (internal/pml). It checks the receiver's life as a Send does,
// across the Posts that find the ring full.
//
// # Sleeping and waking
//
// When a waiter stops polling to sleep, the engine tells sm through
// btl.Idler: sm's listener goroutine adds one to the rank's count of
// sleeping threads, polls once more, and sleeps in futex(FUTEX_WAIT) on
// the rank's wake-up word. A dozing waiter (btl.Dozer) does the same in its
// own thread, with a raw futex call so that the thread keeps the rank's P,
// and only looks whether a ring holds something, leaving the draining to
// its next poll. A sender, after publishing a record, loads the receiver's
// count and, if it is not 0, bumps the wake-up word and calls FUTEX_WAKE.
// The count is raised before the last look and the record's first word is
// stored before the count is loaded (a Dekker pair, ordered by sequentially
// consistent atomics: the word published last is stored with XCHG), so
// either the sleeper's look sees the record or the sender sees the count.
// The wake-up word is read before that look, so a bump after it makes the
// FUTEX_WAIT return at once. While the rank polls, senders pay one load of
// a count that is 0.
//
// # Single copy
//
// sm implements btl.SingleCopier with Linux cross-memory attach: the
// sender exposes its buffer's address in the rendezvous request, and the
// receiver copies the message from the sender's memory into the receive
// buffer with process_vm_readv, then tells the sender it may complete. The
// Go heap does not move objects, and the sender's request keeps its buffer
// reachable until the answer, so the garbage collector cannot free it
// under the copy. At AddProcs each rank reads a probe word in every local
// peer to learn whether the kernel allows it (ptrace restrictions and
// containers may refuse) and writes the answer into the segment's readable
// table; a sender exposes a buffer only to a receiver that may read it,
// since the permission need not be symmetric, and a receiver refused later
// clears its word. Where the kernel refuses, or with
// btl_sm_single_copy_mechanism=none, large messages stream through the
// ring in pieces of a quarter of the message, from 16 KiB up to
// btl_sm_fragment_size, the receiver answering the request from its poll
// (TrySend) before it copies out the first piece, so that the sender
// writes the next one meanwhile. Messages from
// btl_sm_single_copy_threshold up take the single copy, but those of a
// blocking send, while each rank has a CPU, go whichever way their
// receiver last timed faster for that sender and size
// (btl_sm_single_copy_blocking, blocking.go): its sender waits anyway, and
// writing fragments into the ring while the receiver copies them out beat
// a read at every size in most of the machine's states, but in those
// where a copy through the ring is slow a read took a half to a quarter of
// its time from 256 KiB.
//
// # Two copiers for one message
//
// From btl_sm_shared_copy_threshold on, when each local rank has a CPU, the
// receiver's Read shares the copy with the sender, unseen by the engine: it
// describes the copy (both addresses, the size, a sequence number) in the
// pair's copy line, sends the sender a help record, and the two claim
// 64 KiB units from that line with compare-and-swaps on one word (sequence
// number, front and back cursors): the receiver from the front with
// process_vm_readv, the sender, from the poller that drains the help
// record, from the back with process_vm_writev, each taking half of what is
// left until they meet. Read returns only once the sender's units are
// written, so neither buffer can be released under a copy. The receiver
// stores the claim word last, so a sender whose compare-and-swap succeeds
// on the new number reads that copy's addresses. The sequence number makes
// a help record that arrives late claim nothing; a sender that does not
// poll costs the receiver one more system call; a sender whose write fails
// marks its units for the receiver and helps that peer no more. A sender
// that took no part in two shared copies in a row is busy with copies of
// its own (both directions at once, as in bibw): the receiver copies the
// next 16 alone, then asks again. Ranks that share CPUs copy alone, since
// the sender's half would wait for a CPU. With two copiers, bw of 1-4 MiB
// is 1.6-1.8 times that of one. Open MPI's vader has no equivalent.
//
// # Payloads in pieces
//
// A message of a non-contiguous datatype (a matrix column, a subarray) need
// not be packed whole into a buffer before it moves. SendFrom
// (btl.Gatherer) has a btl.Source pack a fragment's payload straight into
// its ring record, the record's first line last as for any other, so the
// fragment is copied once on its way; it waits for room, holds and
// batches as Send and Post do, and packs only once there is room. For
// single copies (btl.ScatterCopier), ExposeVector lays out a descriptor
// of the sender's pieces: a count, then one {address, length} pair per
// piece (pieces adjacent in memory make one) in struct iovec's layout,
// which the reader loads straight into its remote iovecs. The addresses are pointers, so the descriptor, which
// the engine keeps until the FIN, keeps the pieces reachable too; every
// descriptor has room for 31 pieces, so that the reader's first
// process_vm_readv takes the count and up to 31 pieces without reading
// past it. ReadVector then copies with raw process_vm_readv calls of up to
// 1024 iovecs a side (IOV_MAX), a piece of either side straddling batches
// where it falls, loading more of the descriptor for each batch and
// continuing where the kernel stopped early; ReadScatter reads a buffer
// exposed whole into several of the receiver's. Neither shares its copy
// with the sender as Read does. The kernel pins each remote iovec's pages
// apart, about 0.6 us a piece here, where a local iovec costs about a
// tenth of that: against packing, one Read and unpacking a 1 MiB message
// (BenchmarkVector), ReadVector takes 6.5 times as long in blocks of
// 512 B, 1.2 times in 2 KiB, 0.6-0.75 from 4 KiB up; ReadScatter 2.5
// times in 64 B, 0.7 in 512 B and 0.4-0.5 from 2 KiB up.
//
// # A dead peer
//
// A record is published only by the store of its first word after it is
// complete, so a peer killed in the middle of a write leaves nothing
// half-visible. The listener (whether the rank's waiters sleep or poll),
// and a sender waiting for room, check the peers' pids every liveness
// interval and report a peer that is gone without having marked itself
// finalized.
package sm
