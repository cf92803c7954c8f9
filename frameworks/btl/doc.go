// Package btl is the byte transfer layer framework: it moves bytes between
// two ranks. Its components (self, sm, tcp) each reach some peers; the
// framework chooses, per peer, the reachable one with the highest
// exclusivity, then the highest bandwidth (Routes).
//
// A component implements Component: Init returns its modules. A module
// implements Module, the least that the point-to-point engine needs: add
// and remove peers, Send one fragment, Progress, Finalize. It delivers
// what arrives to the Receiver it was given, from Progress or from
// goroutines of its own.
//
// A module may also implement optional interfaces, which the engine and
// Routes find by type assertion, as database/sql finds a driver's. What
// each offers, and what happens without it:
//
//   - SmallSender: SendSmall takes the header of a small blocking send by
//     value, in registers. Without it the engine builds the header in a
//     pooled buffer and calls Send.
//   - Poster: Post may hold a fragment back, to write several to one peer
//     in one system call; Flush writes them. Where Send would wait for
//     room, Post may return ErrFull, and the engine stalls the send until
//     a later poll. Without it every fragment, posted or not, goes through
//     Send, and Flush does nothing.
//   - SmallPoster: PostSmall is Post with the header by value. With it,
//     pmpi's Isend of an eager message needs no engine request: its
//     request completes as it starts. Without it every Isend takes one.
//   - Idler: the module delivers only when polled (shared memory), and
//     Idle and Busy tell it when the rank stops and resumes polling, so
//     that it delivers on its own meanwhile. Without it the module is
//     taken to deliver from its own goroutines, and it is polled only if
//     it carries traffic to some peer.
//   - Dozer: Doze puts the waiting thread to sleep until a peer writes to
//     this rank, for ranks that outnumber their host's CPUs. A rank dozes
//     only when its one polled module is a Dozer (Routes.CanDoze);
//     otherwise its waiters yield and sleep on the engine's wake-up.
//   - Inline: Send delivers before it returns, in the sender's goroutine
//     (self): polling it would find nothing, so it is not polled. Without
//     it a module that carries traffic is polled.
//   - SingleCopier: the receiver of a large message reads it straight
//     from the sender's memory (Expose, Read). Without it, or below
//     SingleCopyMin, a rendezvous payload is sent in fragments of at most
//     MaxSendSize: the first with the announcement, the rest after the
//     receiver's clear-to-send.
//   - PeerFragmenter: fragments to some peers are smaller than
//     MaxSendSize (MaxSendSizeTo). Without it every fragment may reach it.
//   - BlockingCopier: a SingleCopier whose fragments may beat a read for
//     a sender that waits anyway: the engine reports how long each
//     rendezvous receive took (Took), and the module says which way each
//     blocking send goes (SingleCopyBlocking). Without it a blocking send
//     uses SingleCopyMin too.
//   - VectorReader: a SingleCopier that reads several buffers of one peer
//     in one call. Without it the engine reads them one by one.
//
// A transport's own waiting loops give the CPU away with Yield when the
// host is oversubscribed (InitEnv.Oversubscribed), and its lock-free paths
// publish with StoreRelease32 and StoreRelease64.
package btl
