// Package tuned is the coll component of the algorithms that matter at each
// size: for every communicator and message size a built-in decision picks a
// latency-optimal algorithm for small messages and a bandwidth-optimal one
// for large, and coll_tuned_<collective>_algorithm forces one. A decider
// component's rules (coll.Query.Rules) replace the built-in decision where
// they match; a forced parameter still wins over them.
//
// It provides barrier, bcast, reduce, allreduce, gather, scatter, allgather
// and alltoall; the other collectives are left to lower-priority
// components. The thresholds of the decision, each with the measurement
// behind it, are in decision.go.
//
// A rank that meets an error partway (a message of the wrong length:
// counts that disagree) goes on with every send and receive of its
// algorithm, sending failure marks in place of data (coll.Payload), so that
// no peer waits for ever on it and every message sent is received; it
// returns its first error.
//
// # When ranks outnumber CPUs
//
// A message to a rank that is not running waits for a context switch, so
// the fewer times each rank waits, the better, however many bytes move.
// pmpi tells the coll components whether waiting ranks yield their CPU
// (coll.Host.Oversubscribed, agreed by every rank at Init, so every member
// of a communicator decides alike), and the built-in decision then takes,
// on up to 16 ranks, the linear barrier and bcast (each rank waits once or
// twice), the linear reduce below 256 KiB and binomial above it, for
// allreduce recursive doubling, then reduce + bcast, then Rabenseifner
// (never the ring's 2(n-1) rounds), and recursive doubling for allgather at
// every size on a power-of-two number of ranks. Open MPI decides the linear
// barrier for 4 to 7 ranks whatever the load.
package tuned
