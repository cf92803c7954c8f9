package tuned

// The built-in decision: which algorithm runs when its parameter is auto.
// Every rank must reach the same answer, so it looks only at what all
// ranks share: the communicator's size, the message size and whether the
// operation commutes. The thresholds follow the usual cost models
// (latency-bound log-round algorithms below them, bandwidth-optimal ones
// above) and the values MPICH and Open MPI publish, except where a
// measurement on the 2-CPU development machine said otherwise (noted with
// its figures; docs/performance.md has the commands).
const (
	// When waiting ranks yield their CPU (coll.Host.Oversubscribed), the
	// linear algorithms win on up to linearMaxRanks ranks: each rank waits
	// once or twice, where a log-round algorithm has it wait once a round
	// for a peer that may not be running, and a message costs a context
	// switch. Barrier is linear there (Open MPI decides the same for 4 to 7
	// ranks), and so is bcast; reduce is linear below
	// reduceLinearMaxMsg, binomial above. Measured, ranks on 2 CPUs, us
	// per call:
	//   barrier (linear / dissemination / recursive doubling): 4 ranks 27 /
	//   30 / 25, 8 ranks 52 / 90 / 79, 16 ranks 126 / 259 / -;
	//   bcast after a linear barrier (linear / binomial), 8 ranks: 8 B 1.2 /
	//   12, 8 KiB 3.9 / 18.5, 256 KiB 54 / 137, 1 MiB 196 / 426; 4 ranks:
	//   8 B 0.44 / 2.5, 256 KiB 40 / 51 (32 KiB: 21 / 18);
	//   reduce (linear / binomial / Rabenseifner), 8 ranks: 4 B 10.5 / 21 /
	//   86, 64 KiB 91 / 99 / 206, 256 KiB 210 / 205 / 481, 1 MiB 628 / 460 /
	//   1038; 4 ranks: 64 KiB 32 / 39 / 61.
	linearMaxRanks     = 16
	reduceLinearMaxMsg = 256 << 10

	// bcast: binomial below bcastSmallMsg or on few ranks; van de Geijn
	// (scatter + ring allgather) for medium messages on at least
	// bcastScatterMinRanks ranks; the pipelined chain from bcastLargeMsg,
	// once the message holds bcastPipelineSegsPerRank segments per rank,
	// enough for the chain's fill time to be small against the stream.
	// Measured, 8 ranks on 2 CPUs, us per bcast (binomial / pipeline /
	// scatter+allgather): 32 KiB 85 / 198 / 1342, 128 KiB 129 / 436 / 2096,
	// 1 MiB 478 / 1857 / 1100. Binomial wins up to 1 MiB at least.
	bcastSmallMsg            = 4 << 20
	bcastLargeMsg            = 512 << 10
	bcastScatterMinRanks     = 8
	bcastPipelineSegsPerRank = 2

	// reduce: Rabenseifner from reduceLargeMsg on at least
	// reduceRabenseifnerMinRanks ranks for commutative operations;
	// binomial otherwise.
	reduceLargeMsg             = 64 << 10
	reduceRabenseifnerMinRanks = 4

	// allreduce: recursive doubling below allreduceSmallMsg; Rabenseifner
	// up to allreduceLargeMsg and for every large non-commutative
	// operation; the ring from there on for commutative ones, as long as
	// every rank gets at least one element of a chunk.
	allreduceSmallMsg = 8 << 10
	allreduceLargeMsg = 1 << 20
	// When ranks outnumber CPUs, fewer rounds win over fewer bytes:
	// recursive doubling below allreduceOverSmallMsg, reduce + bcast below
	// allreduceOverLargeMsg, Rabenseifner above (never the ring's 2(n-1)
	// rounds). Measured, 8 ranks on 2 CPUs, us (recursive doubling / reduce
	// + bcast / Rabenseifner / ring): 16 KiB 133 / 125 / 172 / 330, 64 KiB
	// 346 / 229 / 302 / 484, 256 KiB 827 / 515 / 697 / 1340, 1 MiB 2813 /
	// 1653 / 1629 / 2345; 4 ranks: 16 KiB 33 / 44 / 51 / 72, 64 KiB 96 / 88
	// / 105 / 101, 1 MiB 942 / 788 / 738 / 837.
	allreduceOverSmallMsg = 16 << 10
	allreduceOverLargeMsg = 256 << 10

	// allgather (on the total gathered bytes): recursive doubling on powers
	// of two below allgatherRecDoublingMax, Bruck below allgatherBruckMax,
	// the ring above.
	allgatherRecDoublingMax = 512 << 10
	allgatherBruckMax       = 80 << 10
	// When ranks outnumber CPUs recursive doubling's log2 n rounds win at
	// every size. Measured, 8 ranks on 2 CPUs, us (ring / Bruck / recursive
	// doubling): 64 KiB blocks 658 / 474 / 435, 1 MiB 7062 / 6591 / 4651.

	// alltoall (on the block each pair exchanges): Bruck for blocks up to
	// alltoallBruckMaxBlock on at least alltoallBruckMinRanks ranks, all
	// posted at once up to alltoallLinearMaxBlock, pairwise above.
	// Measured, 8 ranks on 2 CPUs, us per alltoall (linear / pairwise /
	// Bruck): 16 B 97 / 269 / 130, 128 KiB 1916 / 3096 / 7533, 1 MiB
	// 13903 / 19118 / 54290: all posted at once wins at every size there.
	// Bruck and pairwise stay for larger communicators, where posting
	// every request at once floods the receivers.
	alltoallBruckMaxBlock  = 256
	alltoallBruckMinRanks  = 32
	alltoallLinearMaxBlock = 4 << 20

	// gather and scatter: binomial for blocks below gatherBinomialMaxBlock
	// (latency wins), linear above (each block crosses the network once).
	gatherBinomialMaxBlock = 32 << 10
)

func decideBarrier(n int, oversubscribed bool) int {
	if oversubscribed && n <= linearMaxRanks {
		return barrierLinear
	}
	if isPow2(n) {
		return barrierRecursiveDoubling
	}
	return barrierDissemination
}

func decideBcast(n, bytes, segsize int, oversubscribed bool) int {
	switch {
	case oversubscribed && n <= linearMaxRanks:
		return bcastLinear
	case n <= 2 || bytes < bcastSmallMsg:
		return bcastBinomial
	case bytes >= bcastLargeMsg && segsize > 0 && bytes/segsize >= bcastPipelineSegsPerRank*n:
		return bcastPipeline
	case n >= bcastScatterMinRanks || bytes >= bcastLargeMsg:
		return bcastScatterAllgather
	}
	return bcastBinomial
}

func decideReduce(n, bytes int, commutative, oversubscribed bool) int {
	if oversubscribed && n <= linearMaxRanks {
		if bytes < reduceLinearMaxMsg {
			return reduceLinear
		}
		return reduceBinomial
	}
	if commutative && bytes >= reduceLargeMsg && n >= reduceRabenseifnerMinRanks {
		return reduceRabenseifner
	}
	return reduceBinomial
}

func decideAllreduce(n, bytes, elems int, commutative, oversubscribed bool) int {
	switch {
	case oversubscribed && n <= linearMaxRanks:
		switch {
		case bytes < allreduceOverSmallMsg:
			return allreduceRecursiveDoubling
		case bytes < allreduceOverLargeMsg:
			return allreduceReduceBcast
		}
		return allreduceRabenseifner
	case bytes < allreduceSmallMsg:
		return allreduceRecursiveDoubling
	case commutative && bytes >= allreduceLargeMsg && elems >= n:
		return allreduceRing
	}
	return allreduceRabenseifner
}

func decideAllgather(n, total int, oversubscribed bool) int {
	switch {
	case isPow2(n) && (total < allgatherRecDoublingMax || oversubscribed):
		return allgatherRecursiveDoubling
	case total < allgatherBruckMax:
		return allgatherBruck
	}
	return allgatherRing
}

func decideAlltoall(n, block int) int {
	switch {
	case block <= alltoallBruckMaxBlock && n >= alltoallBruckMinRanks:
		return alltoallBruck
	case block <= alltoallLinearMaxBlock:
		return alltoallLinear
	}
	return alltoallPairwise
}

func decideGather(block int) int {
	if block < gatherBinomialMaxBlock {
		return gatherBinomial
	}
	return gatherLinear
}

func decideScatter(block int) int {
	if block < gatherBinomialMaxBlock {
		return scatterBinomial
	}
	return scatterLinear
}
