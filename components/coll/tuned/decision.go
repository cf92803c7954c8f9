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
	// barrier: linear (every rank reports to rank 0, which releases them
	// all) on up to barrierLinearMaxRanks ranks when waiting ranks yield
	// their CPU, as Open MPI decides for 4 to 7 ranks: each rank then waits
	// twice, where the log-round algorithms have it wait once a round for a
	// peer that may not be running. Measured, ranks on 2 CPUs, us per
	// barrier (linear / dissemination / recursive doubling): 4 ranks 27 /
	// 30 / 25, 8 ranks 52 / 90 / 79, 16 ranks 126 / 259 / -; and OSU's
	// bcast after it, which starts from the barrier's exit, 4 ranks 1.1 /
	// 16 / 29.
	barrierLinearMaxRanks = 16

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

	// allgather (on the total gathered bytes): recursive doubling on powers
	// of two below allgatherRecDoublingMax, Bruck below allgatherBruckMax,
	// the ring above.
	allgatherRecDoublingMax = 512 << 10
	allgatherBruckMax       = 80 << 10

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
	if oversubscribed && n <= barrierLinearMaxRanks {
		return barrierLinear
	}
	if isPow2(n) {
		return barrierRecursiveDoubling
	}
	return barrierDissemination
}

func decideBcast(n, bytes, segsize int) int {
	switch {
	case n <= 2 || bytes < bcastSmallMsg:
		return bcastBinomial
	case bytes >= bcastLargeMsg && segsize > 0 && bytes/segsize >= bcastPipelineSegsPerRank*n:
		return bcastPipeline
	case n >= bcastScatterMinRanks || bytes >= bcastLargeMsg:
		return bcastScatterAllgather
	}
	return bcastBinomial
}

func decideReduce(n, bytes int, commutative bool) int {
	if commutative && bytes >= reduceLargeMsg && n >= reduceRabenseifnerMinRanks {
		return reduceRabenseifner
	}
	return reduceBinomial
}

func decideAllreduce(n, bytes, elems int, commutative bool) int {
	switch {
	case bytes < allreduceSmallMsg:
		return allreduceRecursiveDoubling
	case commutative && bytes >= allreduceLargeMsg && elems >= n:
		return allreduceRing
	}
	return allreduceRabenseifner
}

func decideAllgather(n, total int) int {
	switch {
	case isPow2(n) && total < allgatherRecDoublingMax:
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
