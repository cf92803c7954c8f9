// Package tcp is the btl component that moves bytes between ranks over TCP
// (exclusivity 100 by default: below sm and self, so on one host it carries
// only what they do not).
//
// # Addresses and connections
//
// Init chooses interfaces (all that are up, loopback included, unless
// btl_tcp_if_include or btl_tcp_if_exclude say otherwise; setting both, or
// naming an interface that does not exist, is a fatal error), listens on
// an ephemeral port on each address and publishes the list, with the host
// name, under btl.tcp in the modex. AddProcs orders a peer's addresses for
// dialing: on the same host loopback first; on another host never
// loopback, and networks this host is on first. With no usable interface,
// tcp offers no module.
//
// A pair of ranks shares one connection, dialed on the first Send by either
// side. When both dial at once the connection dialed by the lower rank
// wins: an acceptor that is itself dialing a higher rank answers Yield, and
// the yielding dialer closes its socket and waits for the winner's
// connection; if that does not come within the handshake timeout it dials
// again, at most 3 times. An acceptor already connected also answers
// Yield; one that is finalizing or takes the dialer for failed answers
// Refuse.
//
// # Handshake
//
// Every connection is authenticated both ways before any frame is read:
// Hello (ranks, dialer's nonce), Challenge (ranks, acceptor's nonce, MAC),
// Proof (MAC), Verdict (accept, yield or refuse, MAC). Each MAC is
// HMAC-SHA256 keyed with the job secret over a role label, the job id, both
// ranks and both nonces (and the verdict), so no proof is valid in another
// role, job, pair or connection. Messages have fixed sizes of at most 80
// bytes and start with an 8-byte prefix (magic GMPH, version, type). Each
// incoming connection runs its handshake in its own goroutine, at most
// btl_tcp_max_pending_handshakes at once, and a silent stranger is dropped
// after btl_tcp_handshake_timeout.
//
// # Frames
//
// A frame is a 16-byte little-endian header (magic GMPF, version, flags,
// upper-header length 1-256, payload length at most 1 GiB), the engine's
// header, then the payload. A sender writes a frame with one vectored
// sendmsg under the connection's write lock; a failed write makes the
// connection unusable and the peer failed. A goodbye frame (flag bye, no
// header or payload) tells the peer that the EOF that follows is a
// Finalize, not a failure. A writer whose socket is full polls the
// module's reads and yields, asking poll(2) for room before it writes
// again (it answers once a third of the buffer is free, so large messages
// move in large pieces), and after 2 ms waits in poll(2).
//
// # Coalescing
//
// A loopback sendmsg costs about 5 us when the peer runs on the other CPU,
// whatever it carries, and Open MPI pays that per message. So the engine
// hands the fragment of a non-blocking eager send to btl.Poster.Post, and
// tcp copies one whose payload is at most btl_tcp_coalesce_limit into the
// connection's stage (at most 64 KiB), written in one call before the next
// frame to that peer, at the rank's next poll, when the send is waited on
// (Poster.Flush), at DelProcs' goodbye, or, if none of these comes, from
// the module's flusher goroutine 100 us after the first fragment was held
// (later if the rank computes on its only P). Blocking sends, rendezvous
// fragments and larger payloads are written at once, after whatever is
// held, so frames keep their order. A window of 64 small Isends costs one
// system call instead of 64. MVAPICH's message coalescing is the
// precedent; Open MPI's tcp transport does not do it.
//
// # Payloads in pieces
//
// A non-contiguous message (a matrix column, a subarray) need not be
// packed into a buffer first. SendVector (btl.VectorSender) writes one
// frame whose payload is the concatenation of the caller's slices,
// straight from them: a window of at most IOV_MAX (1024) iovecs per
// sendmsg, refilled from the slices as the socket takes bytes, kept by
// the connection so that a send allocates nothing. Like Send it goes
// after the frames Post held back and is not held itself. On the
// receiving side, when the engine is a btl.VectorPlacer, the reader asks
// it for slices before it asks Place; it fills them with what the read
// buffer holds, then with recvmsg (readv) straight into them, batches of
// at most 1024, handed between pollers and the reader goroutine like a
// payload read into one slice, and ends with DeliverVector. Slices that
// do not add up to the payload are ignored, as if the engine gave none.
// Each iovec costs the kernel a little on both sides: 1 MiB in blocks of
// 64 B took 1.8-2.7 times as long vectored as packed, sent and unpacked;
// blocks of 512 B broke even, 1 KiB varied from run to run, and from
// 2 KiB vectored took 0.65-0.8 of the time (BenchmarkVector).
//
// # System calls
//
// The data path reads with recvfrom (recvmsg into pieces) and writes with
// sendmsg, all with MSG_DONTWAIT, as raw system calls that skip the
// scheduler's entersyscall:
// they cannot block, and an empty poll costs 480 ns raw against 730 ns for
// a read through the scheduler. Large transfers are raw too: through the
// scheduler a long copy let the runtime hand the rank's only P to another
// thread and take it back afterwards, which cost streaming of 128 KiB-4 MiB
// a tenth to a third of its speed. No call moves more than 4 MiB, so a
// garbage collection waits for one such copy at most.
//
// # Readiness and readers
//
// With at most two connections Progress reads each with a non-blocking
// recvfrom, the cheapest way to hear one busy peer. Past two it asks a
// per-module epoll set (level-triggered, every authenticated socket, keyed
// by a connection id so that a reused descriptor is never mistaken) which
// sockets have bytes, and reads only those: an idle connection costs
// nothing per poll. The connection that delivered last is read directly
// first; when it delivers, the poll skips epoll except every fourth poll,
// so that the other peers are not starved.
//
// Frames are reassembled from non-blocking reads by whoever holds the
// connection's read lock (a try-lock): a rank polling through Progress, or
// the connection's reader goroutine. The reader naps while ranks poll and
// takes over 1 ms after polling stops (up to 8 ms after polling that went
// on for long: each nap that sees polls doubles the next, so that an idle
// thread does not wake every millisecond), so messages progress while a
// rank computes; a reader that finds a poller holding the lock naps and looks
// again, since the poller may have stopped short of the bytes that woke
// the reader. A poller that reads the end of a connection closes it, which
// ends the reader's nap: the reader alone reports why the connection ended.
//
// Once authenticated a socket leaves Go's netpoller: its descriptor is
// duplicated and the net.TCPConn closed. The runtime watches its sockets
// whether or not a goroutine waits on them, and a rank's idle thread
// blocked in the netpoller was woken by every segment that arrived while
// the rank polled (a thread wake-up per message, on a CPU that may be
// another rank's). A module-wide epoll set, one shot per wait, wakes only
// the reader goroutines that wait, from one goroutine blocked in
// epoll_wait; a writer waiting for room waits in poll(2). For a payload
// the reader first asks the engine's PlaceVector (if it has one), then
// its Place, so rendezvous DATA is read straight into the receive
// buffer; other payloads go into pooled buffers (power-of-two classes
// from 4 KiB up to the larger of the eager limit and the largest
// fragment, at most 64 MiB) or, when larger, into a buffer that grows as
// bytes arrive, so a length field alone never causes a large allocation. A corrupt frame, or EOF without
// goodbye, closes the connection and reports the peer failed once.
//
// # Socket options and sizes
//
// Connections set TCP_NODELAY; btl_tcp_sndbuf and btl_tcp_rcvbuf set the
// socket buffers. A connection between two ranks of one host (a loopback
// peer, or one the kernel routed locally) uses reno congestion control;
// connections between hosts keep the system's algorithm
// (btl_tcp_congestion: auto, system, or an algorithm's name for every
// connection, tried on a socket of its own at Open so that a name the
// kernel refuses fails at start-up with the names it accepts). bbr, a
// common system default, paces the sender at the bandwidth it has
// measured: on one host nothing queues or is lost, and the pacing halved
// what loopback carries. Reno is built into every kernel and any process
// may choose it. Each end sets its options before the connection carries a
// frame, as each end is the sender of one direction.
//
// Messages up to btl_tcp_eager_limit (128 KiB) go at once; larger ones send
// their first 128 KiB with the RTS and the rest, after the CTS, in
// fragments of btl_tcp_max_send_size (4 MiB), each one sendmsg read
// straight into the receive buffer. With reno, 4 MiB fragments streamed
// 2-4 MiB messages 1.2-1.35 times faster than 1 MiB ones, and a 128 KiB
// eager message takes 0.7 of a rendezvous's time. A connection whose
// algorithm paces the sender (bbr, between hosts on such systems) takes
// fragments of at most 128 KiB (btl.PeerFragmenter), which bbr let
// through 1.4-1.8 times faster than one long write (congestion.go).
package tcp
