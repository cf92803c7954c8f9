package tuned

import "testing"

// TestDecisionValid checks that every decision names an algorithm of its
// collective that can run there, over a sweep of sizes and messages.
func TestDecisionValid(t *testing.T) {
	valid := func(k collective, alg int) bool { return alg >= 1 && alg <= len(k.algorithms) }
	for n := 1; n <= 130; n++ {
		for _, over := range []bool{false, true} {
			if a := decideBarrier(n, over); !valid(barrierAlgs, a) {
				t.Errorf("barrier n=%d oversubscribed=%v: %d", n, over, a)
			}
		}
		for b := 0; b <= 8<<20; b = b*2 + 8 {
			for _, over := range []bool{false, true} {
				if a := decideBcast(n, b, defaultBcastSegsize, over); !valid(bcastAlgs, a) {
					t.Errorf("bcast n=%d b=%d: %d", n, b, a)
				}
				for _, comm := range []bool{true, false} {
					if a := decideReduce(n, b, comm, over); !valid(reduceAlgs, a) {
						t.Errorf("reduce n=%d b=%d: %d", n, b, a)
					}
					a := decideAllreduce(n, b, b/8, comm, over)
					if !valid(allreduceAlgs, a) || (!comm && a == allreduceRing) {
						t.Errorf("allreduce n=%d b=%d commutative=%v: %s", n, b, comm, allreduceAlgs.algName(a))
					}
				}
				if a := decideAllgather(n, n*b, over); !valid(allgatherAlgs, a) || (a == allgatherRecursiveDoubling && !isPow2(n)) {
					t.Errorf("allgather n=%d b=%d oversubscribed=%v: %s", n, b, over, allgatherAlgs.algName(a))
				}
			}
			if a := decideAlltoall(n, b); !valid(alltoallAlgs, a) {
				t.Errorf("alltoall n=%d b=%d: %d", n, b, a)
			}
			if a := decideGather(b); !valid(gatherAlgs, a) {
				t.Errorf("gather b=%d: %d", b, a)
			}
			if a := decideScatter(b); !valid(scatterAlgs, a) {
				t.Errorf("scatter b=%d: %d", b, a)
			}
		}
	}
}

// TestDecisionRegimes pins the regime on each side of the thresholds.
func TestDecisionRegimes(t *testing.T) {
	for _, tc := range []struct {
		what      string
		got, want int
	}{
		{"barrier 8", decideBarrier(8, false), barrierRecursiveDoubling},
		{"barrier 6", decideBarrier(6, false), barrierDissemination},
		{"barrier 8 oversubscribed", decideBarrier(8, true), barrierLinear},
		{"barrier 16 oversubscribed", decideBarrier(linearMaxRanks, true), barrierLinear},
		{"barrier 17 oversubscribed", decideBarrier(linearMaxRanks+1, true), barrierDissemination},
		{"bcast small", decideBcast(16, bcastSmallMsg-1, defaultBcastSegsize, false), bcastBinomial},
		{"bcast large", decideBcast(16, bcastSmallMsg, defaultBcastSegsize, false), bcastPipeline},
		{"bcast large, too few segments per rank", decideBcast(256, bcastSmallMsg, defaultBcastSegsize, false), bcastScatterAllgather},
		{"bcast large unsegmented", decideBcast(4, bcastSmallMsg, 0, false), bcastScatterAllgather},
		{"bcast 1 MiB on 64 ranks", decideBcast(64, 1<<20, defaultBcastSegsize, false), bcastBinomial},
		{"reduce small", decideReduce(16, reduceLargeMsg-1, true, false), reduceBinomial},
		{"reduce large", decideReduce(16, reduceLargeMsg, true, false), reduceRabenseifner},
		{"reduce large non-commutative", decideReduce(16, reduceLargeMsg, false, false), reduceBinomial},
		{"allreduce small", decideAllreduce(16, allreduceSmallMsg-1, 1000, true, false), allreduceRecursiveDoubling},
		{"allreduce medium", decideAllreduce(16, allreduceSmallMsg, 1000, true, false), allreduceRabenseifner},
		{"allreduce large", decideAllreduce(16, allreduceLargeMsg, 1<<17, true, false), allreduceRing},
		{"allreduce large non-commutative", decideAllreduce(16, allreduceLargeMsg, 1<<16, false, false), allreduceRabenseifner},
		{"allgather small pof2", decideAllgather(16, 1024, false), allgatherRecursiveDoubling},
		{"allgather small", decideAllgather(12, 1024, false), allgatherBruck},
		{"allgather large", decideAllgather(12, allgatherBruckMax, false), allgatherRing},
		{"alltoall tiny many ranks", decideAlltoall(alltoallBruckMinRanks, 8), alltoallBruck},
		{"alltoall tiny", decideAlltoall(16, 8), alltoallLinear},
		{"alltoall tiny few ranks", decideAlltoall(4, 8), alltoallLinear},
		{"alltoall medium", decideAlltoall(16, 4096), alltoallLinear},
		{"alltoall large", decideAlltoall(16, alltoallLinearMaxBlock+1), alltoallPairwise},
		{"bcast oversubscribed", decideBcast(8, 1<<20, defaultBcastSegsize, true), bcastLinear},
		{"bcast oversubscribed, many ranks", decideBcast(linearMaxRanks+1, 8, defaultBcastSegsize, true), bcastBinomial},
		{"reduce oversubscribed small", decideReduce(8, reduceLinearMaxMsg-1, true, true), reduceLinear},
		{"reduce oversubscribed large", decideReduce(8, reduceLinearMaxMsg, true, true), reduceBinomial},
		{"allreduce oversubscribed small", decideAllreduce(8, allreduceOverSmallMsg-1, 1000, true, true), allreduceRecursiveDoubling},
		{"allreduce oversubscribed medium", decideAllreduce(8, allreduceOverSmallMsg, 1000, true, true), allreduceReduceBcast},
		{"allreduce oversubscribed large", decideAllreduce(8, allreduceOverLargeMsg, 1<<16, true, true), allreduceRabenseifner},
		{"allgather oversubscribed large pof2", decideAllgather(8, allgatherRecDoublingMax, true), allgatherRecursiveDoubling},
		{"gather small", decideGather(100), gatherBinomial},
		{"gather large", decideGather(gatherBinomialMaxBlock), gatherLinear},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, tc.got, tc.want)
		}
	}
}
