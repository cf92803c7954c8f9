// Package han is the coll component for communicators that span nodes:
// every collective it provides goes in two levels, within each node and
// among one rank per node, so that a message crosses between hosts once
// per node rather than once per rank. It is Open MPI's coll/han idea
// written on gompi's point-to-point.
//
// # When it runs
//
// CommQuery reads coll.Host.Nodes, each rank's node. han declines a
// communicator on one node (coll sm's, or tuned's beyond sm's limits),
// one whose nodes are unknown, and one with a single rank on every node:
// there two levels are one level with extra steps. Its priority, 40, is
// above tuned's (30), which it leaves the calls it does not take, and
// below sm's (50), which declines communicators that span nodes: the two
// never compete.
//
// # How
//
// A node's leader is its lowest rank; nodes are numbered by their first
// rank, so the leaders are in rank order. A node's ranks need not be
// consecutive (--map-by node deals them round robin), so everything that
// moves per-rank blocks between nodes packs a node's blocks, in the order
// of its ranks, into one message. The two levels use the parent
// communicator's Send and Recv with the collective's own tag: btl sm
// carries the messages within a node and btl tcp those between nodes. A
// leader-to-leader message and a message within a node never join the
// same two ranks, and within one call no two messages in one direction
// join the same two ranks, so the tag keeps them apart across calls by
// MPI's non-overtaking order alone.
//
//   - bcast: the root stands for its node; a binomial tree among it and
//     the other leaders, then one in each node from the rank that has the
//     message. Messages between nodes: nodes-1.
//   - reduce: a binomial reduce within each node, then among the nodes.
//     A commutative operation reduces straight to the root, which stands
//     for its node (nodes-1 messages between nodes). A non-commutative one
//     must give the rank-order fold: the trees run over ascending rank
//     lists, each subtree holding the ranks after its parent's, within
//     each node to its leader, then among the leaders in node order to the
//     first, which sends the result to the root. That is the rank order
//     only when every node's ranks are consecutive; on other layouts the
//     call goes to the next component.
//   - allreduce: a reduce in each node to its leader, then among the
//     leaders either han's reduce to the first and han's bcast from it
//     (2(nodes-1) messages between nodes), or, for up to 8 KiB on up to 8
//     nodes, an exchange: each leader sends its node's partial result to
//     every other and folds them all in node order (nodes(nodes-1)
//     messages, but one message's latency instead of two trees'); then a
//     bcast in each node.
//   - barrier: each node's ranks report to their leader, the leaders run
//     a barrier (on up to 8 nodes one round in which each tells every
//     other, on more a dissemination barrier of ceil(log2 nodes) rounds),
//     and each leader releases its node.
//   - gather: each node's head (the root on its own node, the leader on
//     the others) collects its node's blocks; each leader sends its node's
//     blocks to the root in one message.
//   - scatter: the reverse; the root sends each other node's blocks to
//     its leader in one message and its own node's blocks straight to
//     their ranks.
//   - allgather: each leader collects its node's blocks, the leaders send
//     them to each other in one message a pair, and each leader passes the
//     whole result down a binomial tree in its node.
//
// The trees cut no vector: every message holds whole buffers, so an
// operation's units (coll.Op ElemSize) are never split.
//
// Everything else (alltoall, the v-variants, reduce_scatter, scan) is
// the next component's: Build gives han nothing to do for them.
//
// # Parameters
//
// coll_han_<collective>_algorithm, for each collective above: auto
// (hierarchical, except that han steps aside for a collective whose tuned
// algorithm the user forced or a decider's rules name, as coll sm does),
// hierarchical (whatever tuned's parameters say), or next (every call to
// the next component: han leaves the slot empty, so the coll_base_verbose
// table names the component that serves it).
//
// # Errors
//
// han returns the cause with the level it happened at ("among the nodes",
// "within node K"); the framework names the component, the collective and
// the communicator, and the point-to-point layer the peer. A call han
// passes down is marked as passed, so that tuned's failure does not read
// as han's.
//
// In two levels a rank waits on ranks that wait on others: a node's ranks
// on their leader, which waits on the other leaders. The point-to-point
// layer reports a dead peer only to those that talk to it, so a rank that
// meets an error goes on with every receive and send of its part, and
// sends poison in place of data: a failure mark (coll.FailureMark), longer
// than the peer receives, which fails the peer's receive as a peer's
// failure, not as counts that disagree. The failure so reaches every rank that depends on it as an error instead of
// a wait that never ends, and every message sent is received, so that
// nothing of the failed call is left to be matched by the next.
package han
