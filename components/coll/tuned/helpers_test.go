package tuned

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// sizes are the communicator sizes every algorithm runs on.
var sizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9}

// testConfig forces nothing, with segments small enough that the test
// messages of a few KiB take several.
func testConfig() config {
	return config{bcastSegsize: 1000, allreduceSegsize: 40}
}

// run runs f on every rank of a fresh n-rank world, each rank with its own
// module built from cfg, as each process has its own: once with colltest's
// sends, which never block, once with rendezvous sends.
func run(t *testing.T, n int, cfg config, f func(m *coll.Module, c coll.Comm) error) {
	t.Helper()
	w := colltest.NewWorld(n)
	mods := make([]*coll.Module, n)
	for r := range mods {
		mods[r] = newModule(cfg, hclog.NewNullLogger(), nil, coll.Host{}).collectives()
	}
	w.Run(t, func(c coll.Comm) error { return f(mods[c.Rank()], c) })
	if !t.Failed() {
		// Again with sends that wait for their receives.
		w = colltest.NewWorld(n)
		w.Run(t, func(c coll.Comm) error { return f(mods[c.Rank()], newRendezvous(c)) })
	}
}

// roots are the first, middle and last ranks, without repeats.
func roots(n int) []int {
	rs := []int{0}
	for _, r := range []int{n / 2, n - 1} {
		if r != rs[len(rs)-1] {
			rs = append(rs, r)
		}
	}
	return rs
}

// data is rank's deterministic input of n bytes for a test named seed.
func data(seed, rank, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed*7919 + rank*104729 + 1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// affineData is rank's input of elems Affine pairs, with odd factors
// other than 1 so that the order of composition shows.
func affineData(seed, rank, elems int) []byte {
	b := data(seed, rank, elems*16)
	for i := 0; i < elems; i++ {
		a := binary.LittleEndian.Uint64(b[i*16:])%7 + 2
		binary.LittleEndian.PutUint64(b[i*16:], a)
	}
	return b
}

// testOp is an operation and the inputs to reduce with it.
type testOp struct {
	name  string
	op    coll.Op
	input func(seed, rank, elems int) []byte
}

var testOps = []testOp{
	{"sum", colltest.SumInt64{}, func(seed, rank, elems int) []byte { return data(seed, rank, elems*8) }},
	{"affine", colltest.Affine{}, affineData},
}

// reference reduces the inputs sequentially in rank order.
func reference(op coll.Op, inputs [][]byte) []byte {
	acc := bytes.Clone(inputs[0])
	for _, in := range inputs[1:] {
		next := bytes.Clone(in)
		op.Reduce(acc, next)
		acc = next
	}
	return acc
}

func allRanks(n int, f func(rank int) []byte) [][]byte {
	out := make([][]byte, n)
	for r := range out {
		out[r] = f(r)
	}
	return out
}

// expectEqual reports a rank's result that differs from want.
func expectEqual(got, want []byte, what string, rank int) error {
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("%s at rank %d: %d bytes differ from the reference (%d expected), first at byte %d",
			what, rank, len(got), len(want), i)
	}
	return nil
}

// algNums lists every algorithm of k, then auto.
func algNums(k collective) []int {
	nums := make([]int, 0, len(k.algorithms)+1)
	for _, a := range k.algorithms {
		nums = append(nums, a.num)
	}
	return append(nums, auto)
}
