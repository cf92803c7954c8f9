package tuned

import (
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
		mods[r] = newModule(cfg, hclog.NewNullLogger(), nil, false).collectives()
	}
	w.Run(t, func(c coll.Comm) error { return f(mods[c.Rank()], c) })
	if !t.Failed() {
		// Again with sends that wait for their receives.
		w = colltest.NewWorld(n)
		w.Run(t, func(c coll.Comm) error { return f(mods[c.Rank()], colltest.NewRendezvous(c)) })
	}
}

var testOps = []colltest.OpCase{colltest.SumCase, colltest.AffineCase}

// algNums lists every algorithm of k, then auto.
func algNums(k collective) []int {
	nums := make([]int, 0, len(k.algorithms)+1)
	for _, a := range k.algorithms {
		nums = append(nums, a.num)
	}
	return append(nums, auto)
}
