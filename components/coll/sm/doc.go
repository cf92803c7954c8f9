// Package sm is the coll component of collectives through memory that a
// communicator's members share, for communicators whose ranks all run on
// one node (coll.Host.OneNode) and number at most coll_sm_max_ranks.
//
// Each rank owns two blocks of a segment mapped by every member. A
// collective call is an epoch: a rank writes its contribution into its
// block of the epoch's parity, then raises the block's epoch word; the
// ranks that need the contribution wait for the word and read the block.
// No message, no matching and no request: a small allreduce of two ranks
// costs one cache-line transfer each way, where a message over btl sm
// costs the engine's work at both ends on top of it.
//
// It provides barrier, bcast, reduce, allreduce, gather, scatter,
// allgather, allgatherv, alltoall, reduce_scatter, reduce_scatter_block,
// scan and exscan, and a Cartesian grid's neighbor_allgather and
// neighbor_alltoall (neighbor.go; a graph's go to the module below).
// gatherv, scatterv and alltoallv, whose counts only some ranks know, the
// calls where tuned was measured faster (rounds.go, timed.go), and every
// call of a collective whose tuned algorithm the user forced
// (coll_tuned_<collective>_algorithm) or that a decider's rules name go to
// the module below (Module.Below: tuned).
//
// # The segment
//
// The segment is a file under coll_sm_backing_directory (/dev/shm by
// default; the job's session directory where that refuses the file)
// named gompi.<job>.<context>.<first member>.coll after coll.Host.ID, so
// that the launcher's clean-up of a killed job removes it; its name is
// removed once every member has mapped it. It holds a
// wake-up line and two blocks per rank of coll_sm_max_bytes, each block
// beginning with an epoch word and a length word, followed by the data (a
// contribution of up to 48 bytes travels in the epoch word's own line; a
// larger one starts on the next, so that its copies keep the alignment of
// the user's buffer). A block smaller than 64 bytes a rank leaves the
// larger calls to tuned.
//
// A communicator's segment is made at the call after its first
// coll_sm_segment_after (lazy.go), which go to the next component, not
// when the communicator is made: a Dup, Split or Create costs no set-up
// and no memory until it has made that many collective calls, or on 3
// ranks or more a reduction whose result depends on the grouping. At that
// call rank 0 first offers a segment from the pool of freed communicators'
// segments (pool.go: at most 4, each with a random token in its header),
// which is taken when every member holds the same one, in the same rank, at
// the same epoch and call count, so that nothing in it needs clearing;
// otherwise rank 0 creates a new one, every member maps it and answers. A
// member that cannot map it sends every call to the next component, and so
// do all the others. The segment of a communicator one of whose calls
// failed is unmapped, not pooled. A set-up that finds the pool empty takes
// 0.5-4 ms on 2-8 ranks here (most of it reserving the file's memory and
// the messages); the pages are faulted in by the calls that use them. A
// loop of Dup, collectives and Free pays it once.
//
// # Epochs
//
// The calls that go through the segment are numbered epochs alike on every
// member, one per call, or one per round of a call in rounds: MPI has the
// members of a communicator call its collectives in the same order, and a
// call's size, which decides its path and its rounds, is alike on every
// member of a correct program. In epoch e a rank uses its block of parity
// e&1: it writes its data and the length word (the contribution's length,
// the call's number on the communicator, so that a word left from an
// earlier call never passes for this one's, and a rooted call's root, so
// that a block written under another root is refused) with plain stores
// (through shm.Writer), then raises the block's epoch word to e
// with an atomic store, which publishes the data; a reader loads the word
// atomically and, once it reads at least e, reads the data. With a CPU per
// rank, a reader of a contribution of 49-512 bytes prefetches the block's
// later lines at every look at the word, so that they come over with the
// word rather than after it (a 2-rank bcast of 64-256 B in two thirds of
// the time; prefetching 1 KiB too took the lines from the writer while it
// filled them). A rank that writes nothing in a call (a bcast's receivers)
// raises its word once it has read what it needed. So a rank's word at e-1
// says it is done with epoch e-2, and before writing its block at epoch e
// a rank waits until every member's word has reached e-1. After a call
// that read every member (allreduce, allgather, a barrier) that is already
// known from a per-rank cache of the words seen, and costs no load.
//
// Reductions combine the blocks in rank order (b0 ⊕ (b1 ⊕ ...)) on every
// rank, so results are identical on every rank and right for
// non-commutative operations. Each reader checks the length of every block
// it reads, so counts that disagree are ErrTruncate or ErrCount, as over
// messages.
//
// The barrier is flat (each rank raises its word and waits for every
// other) with a CPU per rank; when ranks outnumber CPUs, rank 0 waits for
// the others and then raises its word, so that it leaves first and what it
// does next is ready before the others, whom a context switch may keep
// away, come for it.
//
// # Waiting
//
// A waiting rank spins on the word. Every 64 loads it calls
// coll.Poller.Poll, which progresses the point-to-point engine (a peer may
// be waiting for this rank's rendezvous) and ends the wait with
// ErrProcFailed if a member died. It lets the process's other goroutines
// run (runtime.Gosched) every 1024 loads, a few microseconds: every 64 fell
// inside most short waits and cost a 2-rank collective's fast calls a
// quarter of their time. It gives its CPU away at once when the host is
// oversubscribed, after 16k loads otherwise, and once it has waited 1 ms it
// sleeps on a futex in the segment (1 ms at most between polls): each rank
// has a wake-up line with a count of the ranks asleep on it, and a rank
// that raises a word wakes them if the count is not zero (the raise and the
// sleeper's count before its last look form a Dekker pair; the raise is a
// release store, and the sleeper's lowlevel.RemoteFence orders it, where
// membarrier is allowed). A rank woken from sleep is run at once by the
// scheduler, where one that yields waits behind whatever else runs. A wait
// that lasts 10 ms shows in gompirun's state report, naming the member
// waited for.
//
// # Rounds
//
// A call larger than a block goes in rounds, each an epoch of its own that
// carries the next block's worth of every contribution (rounds.go): a
// bcast's root writes the next piece of its buffer, an allreduce's ranks
// the next piece of their vectors, which every rank folds into the same
// piece of its result, an alltoall's ranks the next piece of their part for
// every rank. The epochs' double buffering pipelines the rounds (a rank
// writes round j+1 while the others read round j), and the pieces stay in
// the caches, where a large message goes through memory. Against the
// alternatives (tuned's messages, or a cross-memory copy from the send
// buffers), rounds take 0.3-0.9 of the time at 128 KiB-1 MiB for bcast,
// allgather and allreduce on 2 ranks, and for reduce, allreduce and
// allgather on 4 and 8. Where ranks outnumber CPUs every rank waits for the
// others at every round, a context switch each, so an alltoall of send
// buffers above 512 KiB on more than 4 ranks or on ranks that share CPUs,
// and a bcast above 512 KiB on more than 4 ranks, go to tuned, and a
// neighbour alltoall of send buffers above 512 KiB on more than 4 ranks
// that share CPUs to basic (roundsPay).
// Larger blocks make larger rounds faster: a 2-rank bcast of 512 KiB-4 MiB
// in 64 KiB rounds takes 1.2-1.7 times as long as in 256 KiB ones.
//
// Ranks whose counts disagree would do different numbers of rounds and
// fall out of step for good, so a call's first round of several is also an
// agreement: every member writes its length word in it, whether it
// contributes or not, and reads every other's; a member whose count fits
// one round and that writes nothing leaves a word of an earlier call,
// whose call number gives it away. Every rank of such a call returns
// ErrTruncate or ErrCount after the first round, in step with the others.
//
// A large allreduce on more than 2 ranks splits its reduction
// (allreduceSplit). A flat round has every rank read every block and reduce
// the whole piece: n-1 pieces more than its share, which ranks that share
// CPUs pay in full. Where that redundant reading reaches 256 KiB (n times a
// rank's bytes), a round takes two epochs: every rank writes its piece,
// reduces its n-th of the piece's elements from every block in rank order
// into its result and into its block of the second epoch, then copies the
// others' shares out of theirs: the shared-memory form of the
// reduce-scatter and allgather of tuned's Rabenseifner. On 8 ranks at
// 1 MiB it takes 0.46 of the flat rounds' time; on 2 ranks, where each has
// a CPU, the flat round stays (the split is slower at 512 KiB-1 MiB).
//
// # The faster path, timed
//
// A bcast, allgather or alltoall of 2 KiB or more on 2 ranks or 16 KiB or
// more on more, and a reduce of 2 KiB or more on 2 ranks, can go through
// the segment (every line of a contribution written anew, then pulled
// across to the other CPUs' caches) or to tuned as messages, which btl sm
// copies inline or by single copy from the send buffer, which may still be
// in the reader's cache from the call before. Which is faster depends on
// the machine's state, not on the code: on the same build, minutes apart,
// the segment has measured 0.3-0.9 of the messages' time and 1.2-1.6, and
// when the two CPUs are far apart a 2-rank bcast of 1 MiB through the
// segment takes 1.4-1.6 times the messages' time. So these calls time
// both paths, per collective and size class (powers of two) (timed.go): a
// class's first 128 calls take a fixed path (on 2 ranks tuned for a bcast
// from 512 KiB, else the segment; on more the segment), since a
// trial's slower path is what a program of a few dozen calls would pay on
// every call; then a trial of four calls in a row through the segment and
// four to tuned, the first of each run not counted (it finds the caches as
// the other path left them); then every rank gives the others its median call
// on each path through the segment, all add them up (OSU's figure is the
// mean of the ranks' times, so a bcast's root, which only writes, counts
// as much as a rank that waits) and take the smaller. All make their
// trials at the same calls and decide from the same numbers, so they
// always take the same path; the trial comes back every 1024 calls of a
// class, so that a run whose machine changes state follows it. Only
// blocking calls count: a call that serves a non-blocking or persistent
// collective's request (coll.NonBlocking) takes its class's current path,
// since its time holds whatever the program did between the start and the
// Wait, and a trial's calls on the slower path, run after a computation,
// made OSU's overlapped 2-rank Ibcasts of 16-256 KiB take longer than the
// call and the computation one after the other. A reduce is
// timed only where its result cannot depend on the path: on 2 ranks, to
// rank 0 or of a non-commutative operation, where tuned's binomial tree
// combines in rank order too. allreduce is not timed: the segment was
// faster at every size in every state. coll_sm_path (segment, next) fixes
// the path for runs that must be reproducible call for call, and the
// choice is logged under coll_base_verbose.
//
// # Calls that go different ways
//
// Where the blocks are too small for rounds, a call's path follows from its
// size, alike on every rank of a correct program. In an erroneous one whose
// counts disagree across the limit, each rank would wait for what another
// never does. So each rank announces its calls in a word of its wake-up
// line (announce.go): the call's number on the communicator (modulo 2^24),
// the collective, the path and the size, stored at once for a call to
// tuned and, for a call through the blocks, only when the rank first waits
// long (a store at every call cost a 2-rank barrier 4 %). Every 1024 polls
// of a wait for a member's word a rank compares the member's announcement
// with the call it waits in: the same call another way, another
// collective, or a later call while the awaited word is still not raised
// (checked again after the announcement is read, so a member that finished
// meanwhile is not blamed) fails the call with ErrTruncate or ErrCount,
// naming both sizes and paths. A rooted call also announces its root, in a
// second word tagged with the call's number: a member that announced
// another root, or a block written under another, fails the call with
// coll.ErrRootsDisagree. A bcast's or scatter's non-root, which writes no
// block, writes its length word once it has read the root's, so a rank
// that took itself for the root finds the disagreement; what no rank reads
// (a second self-declared root of a one-round bcast, a one-round reduce
// where no rank takes itself for the root) goes unnoticed, as in Open MPI.
// A rank that went to tuned waits there for messages that will not come,
// and a rank that waits for no one (a bcast's root) announces nothing, so
// the others may find the mismatch only later or not at all.
//
// # Non-blocking calls
//
// pmpi runs a non-blocking call of a collective that sm serves with its
// blocking function, in start order (coll.Table.InOrder), at the call's
// Wait or in a goroutine. Before that, a call that starts with no earlier
// call outstanding on the communicator is offered to the module's Start
// functions (start.go), which do at once what waits for no other rank:
// for a barrier, bcast, scatter, reduce, allreduce, gather, allgather or
// alltoall of one round that the timed path leaves alone, and only if
// this rank's block is free, they write and raise the block, and complete
// the call there if every block it needs is already raised (a bcast's or
// scatter's root, a reduce's or gather's other ranks always; the last
// rank to start an allreduce). Otherwise the blocking function, called next with the
// same arguments, finishes the call (module.started). With one P nothing
// runs a call while the program computes, so the half done at the start
// is what lets another rank's Wait find its blocks written: a 2-rank
// Ibcast or Iallreduce of 1-64 bytes took 0.71-0.78 of the time of
// running the whole call at the Wait.
package sm
