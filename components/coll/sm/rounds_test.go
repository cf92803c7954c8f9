package sm

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// roundsBytes is a test world's block: two lines a rank, so that calls of
// a few hundred bytes take several rounds.
func roundsBytes(n int) int { return 2 * n * line }

// roundsCalls are k's calls past the block: one element more, and a few
// rounds and a part.
func roundsCalls(k kind, n, maxBytes int) []call {
	return limitCalls(k, n, maxBytes, func(l int) []int { return []int{l + 1, 7*l/2 + 3} })
}

// inRoundsCall says whether sm serves call x of n ranks, past the block, in
// rounds (roundsPay), or leaves it to the next module.
func inRoundsCall(x call, n int, oversubscribed bool) bool {
	switch x.k {
	case kAlltoall:
		return n*x.size <= 512<<10 || n <= 4 && !oversubscribed
	case kBcast:
		return n <= 4 || x.size <= 512<<10
	}
	return true
}

// TestRounds runs every collective past the block: each must go in
// rounds, giving the right result without a message, or go to the next
// module where rounds were measured slower.
func TestRounds(t *testing.T) {
	for _, n := range sizes {
		for _, over := range []bool{false, true} {
			t.Run(fmt.Sprintf("n%d/oversubscribed=%v", n, over), func(t *testing.T) {
				maxBytes := roundsBytes(n)
				w := newWorld(t, n)
				host := w.host()
				host.Oversubscribed = over
				w.build(t, host, func(int) config { return config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir} })
				for k := range nKinds {
					w.runServed(t, roundsCalls(k, n, maxBytes), func(x call) bool { return inRoundsCall(x, n, over) })
				}
			})
		}
	}
}

// TestRoundsManyEpochs mixes calls of one round and of several with the
// others: a round that wrote over a block before every member had read it
// would show as a wrong result.
func TestRoundsManyEpochs(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			maxBytes := roundsBytes(n)
			w := newWorld(t, n)
			w.buildSm(t, maxBytes)
			calls := sequence(n, 3*maxBytes, 200) // sizes to about four blocks
			several := 0
			for _, x := range calls {
				if x.contribution(n) > maxBytes && inRoundsCall(x, n, false) {
					several++
				}
			}
			if several < 40 {
				t.Fatalf("only %d of %d calls go in several rounds", several, len(calls))
			}
			w.runCalls(t, calls)
		})
	}
}

// TestRoundsCountsDisagree: rank 1 passes a shorter buffer than the
// others, in calls of several rounds. The first round is an agreement, so
// every rank returns an error, ErrTooLong on rank 1, which reads the
// others' longer counts, ErrTooShort on the others, and the ranks stay in
// step: the next calls work. When rank 1's count fits a block, it takes
// one round: it finds the error only where it reads another rank's
// block, and the others find its length word left from an earlier call.
func TestRoundsCountsDisagree(t *testing.T) {
	const maxBytes = 5 * 2 * line // two lines a rank on the largest world
	sum := testOps[0].Op
	every := func(r, _ int) int {
		if r == short {
			return wantTooLong
		}
		return wantTooShort
	}
	var cases []disagreement
	for _, tc := range []struct {
		name    string
		k, less int
		// scatter's per-rank block: rank 1's root buffer (n of them) must
		// fit a block on 5 ranks, or not, as the others' counts do
		sk, sless int
	}{
		{"several", 3 * maxBytes, maxBytes, 3 * maxBytes / 2, maxBytes / 2},
		{"one", 3 * maxBytes, 3*maxBytes - maxBytes/2, 3 * maxBytes / 2, 3*maxBytes/2 - maxBytes/5},
	} {
		k, less, sk, sless := tc.k, tc.less, tc.sk, tc.sless
		one := tc.name == "one"
		// wantOr is every's want, except rank 1's when its single round
		// reads nothing.
		wantOr := func(reads func(r, n int) int) func(r, n int) int {
			if !one {
				return every
			}
			return func(r, n int) int {
				if r == short {
					return reads(r, n)
				}
				return wantTooShort
			}
		}
		cases = append(cases, disagreement{"allreduce/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, k, less)
			return tab.Allreduce(c, colltest.Data(1, r, l), make([]byte, l), sum)
		}, wantOr(everyReads), nil})
		cases = append(cases, disagreement{"allgather/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, k, less)
			return tab.Allgather(c, colltest.Data(1, r, l), make([]byte, n*l))
		}, wantOr(everyReads), nil})
		cases = append(cases, disagreement{"alltoall/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := n * shortLength(r, k/n, less/n)
			return tab.Alltoall(c, colltest.Data(1, r, l), make([]byte, l))
		}, wantOr(everyReads), nil})
		cases = append(cases, disagreement{"scan/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, k, less)
			return tab.Scan(c, colltest.Data(1, r, l), make([]byte, l), sum)
		}, wantOr(func(r, _ int) int { return wantTooLong }), nil})
		cases = append(cases, disagreement{"allgatherv/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			// Rank 1's counts are all short: its datatype differs.
			l := shortLength(r, k, less)
			counts, displs := make([]int, n), make([]int, n)
			for q := range counts {
				counts[q], displs[q] = l, q*l
			}
			return tab.Allgatherv(c, colltest.Data(1, r, l), make([]byte, n*l), counts, displs)
		}, wantOr(everyReads), nil})
		cases = append(cases, disagreement{"reduce_scatter_block/" + tc.name, func(tab *coll.Table, c coll.Comm, r, n int) error {
			l := shortLength(r, sk, sless)
			return tab.ReduceScatterBlock(c, colltest.Data(1, r, n*l), make([]byte, l), byteSum{})
		}, wantOr(everyReads), nil})
		for _, root := range []int{0, 1} {
			cases = append(cases, disagreement{fmt.Sprintf("reduce/root%d/%s", root, tc.name), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, k, less)
				return tab.Reduce(c, colltest.Data(1, r, l), make([]byte, l), sum, root)
			}, wantOr(rootReads(root)), nil})
			cases = append(cases, disagreement{fmt.Sprintf("gather/root%d/%s", root, tc.name), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, k, less)
				return tab.Gather(c, colltest.Data(1, r, l), make([]byte, n*l), root)
			}, wantOr(rootReads(root)), nil})
			cases = append(cases, disagreement{fmt.Sprintf("bcast/root%d/%s", root, tc.name), func(tab *coll.Table, c coll.Comm, r, n int) error {
				return tab.Bcast(c, colltest.Data(1, root, shortLength(r, k, less)), root)
			}, wantOr(readRoot(root)), nil})
			cases = append(cases, disagreement{fmt.Sprintf("scatter/root%d/%s", root, tc.name), func(tab *coll.Table, c coll.Comm, r, n int) error {
				l := shortLength(r, sk, sless)
				return tab.Scatter(c, colltest.Data(1, root, n*l), make([]byte, l), root)
			}, wantOr(readRoot(root)), nil})
		}
	}
	// The warm calls fill every block with a call of this size, so that the
	// words rank 1 leaves are of another call of the very counts.
	var warm []call
	for range 2 {
		warm = append(warm, call{k: kBcast, size: 3 * maxBytes, seed: 1}, call{k: kAllgather, size: 3 * maxBytes, seed: 2})
	}
	runDisagreements(t, cases, func(t *testing.T, w *world) { w.buildSm(t, maxBytes) }, warm, maxBytes)
}

// TestAllreduceSplit runs allreduces large enough to split their
// reduction (splitPays), in one round and in several with a last round of
// elements that do not divide among the ranks, with a non-commutative
// operation among them: every rank must get the flat round's result.
func TestAllreduceSplit(t *testing.T) {
	const maxBytes = 128 << 10
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			w := newWorld(t, n)
			w.buildSm(t, maxBytes)
			m := &module{n: n}
			var calls []call
			for _, op := range testOps {
				es := op.Op.ElemSize()
				for _, elems := range []int{(splitMin/n + es - 1) / es, maxBytes / es, 3*maxBytes/es + 5} {
					if !m.splitPays(elems * es) {
						t.Fatalf("%d bytes on %d ranks do not split", elems*es, n)
					}
					calls = append(calls, call{k: kAllreduce, size: elems, op: op, seed: len(calls)})
				}
			}
			w.runServed(t, calls, func(call) bool { return true })
		})
	}
	if (&module{n: 2}).splitPays(1 << 30) {
		t.Error("an allreduce on 2 ranks splits")
	}
}
