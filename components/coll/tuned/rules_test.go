package tuned

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/internal/testlog"
)

// TestRulesChooseTheAlgorithm runs bcast and allreduce on 3 ranks with rules
// and checks each call's trace line: the rule's algorithm where one
// matches, the built-in decision elsewhere, a forced parameter over the
// rules, and the built-in decision for a rule that cannot run.
func TestRulesChooseTheAlgorithm(t *testing.T) {
	rules, err := coll.NewRules([]coll.Rule{
		{Collective: "bcast", Ranks: coll.Range{Min: 1, Max: 3}, Bytes: coll.Range{Min: 0, Max: 100}, Algorithm: "linear"},
		{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Range{Min: 200, Max: 300}, Algorithm: "pipeline", Segsize: 64},
		{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Range{Min: 400, Max: 400}, Algorithm: "nonesuch"},
		{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Range{Min: 500, Max: 500}, Algorithm: "auto"},
		{Collective: "allreduce", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "ring"},
		{Collective: "allgather", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "recursive_doubling"},
		{Collective: "barrier", Ranks: coll.Range{Min: 4, Max: -1}, Bytes: coll.Any, Algorithm: "linear"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		forced []string
		call   func(m *coll.Module, c coll.Comm) error
		want   []string // in the log
	}{
		{"rule", nil, func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 100), 0) },
			[]string{"collective=bcast algorithm=linear decision=rules bytes=100"}},
		{"rule with a segment size", nil, func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 256), 1) },
			[]string{"collective=bcast algorithm=pipeline decision=rules bytes=256"}},
		{"no rule for the size", nil, func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 150), 0) },
			[]string{"collective=bcast algorithm=binomial decision=built-in bytes=150"}},
		{"unknown algorithm", nil, func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 400), 0) },
			[]string{"a rule names no algorithm of tuned", "rules=nonesuch", "decision=built-in bytes=400"}},
		{"auto", nil, func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 500), 0) },
			[]string{"algorithm=binomial decision=built-in bytes=500"}},
		{"forced wins", []string{"coll_tuned_bcast_algorithm", "scatter_allgather"},
			func(m *coll.Module, c coll.Comm) error { return m.Bcast(c, make([]byte, 100), 0) },
			[]string{"algorithm=scatter_allgather decision=forced"}},
		{"rule for commutative operations only", nil, func(m *coll.Module, c coll.Comm) error {
			return m.Allreduce(c, make([]byte, 32), make([]byte, 32), colltest.Affine{})
		}, []string{"falling back", "rules=ring", "algorithm=recursive_doubling decision=built-in"}},
		{"rule", nil, func(m *coll.Module, c coll.Comm) error {
			return m.Allreduce(c, make([]byte, 32), make([]byte, 32), colltest.SumInt64{})
		}, []string{"collective=allreduce algorithm=ring decision=rules"}},
		{"rule for powers of two only", nil, func(m *coll.Module, c coll.Comm) error {
			return m.Allgather(c, make([]byte, 8), make([]byte, 24))
		}, []string{"rules=recursive_doubling", "decision=built-in"}},
		{"rule for other sizes", nil, func(m *coll.Module, c coll.Comm) error { return m.Barrier(c) },
			[]string{"collective=barrier algorithm=dissemination decision=built-in"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out testlog.Buffer
			log := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &out})
			comp, err := open(t, log, tc.forced...)
			if err != nil {
				t.Fatal(err)
			}
			const n = 3
			w := colltest.NewWorld(n)
			mods := make([]*coll.Module, n)
			for r := range mods {
				_, mods[r], _ = comp.CommQuery(w.Comm(r), coll.Query{Priority: 30, Rules: rules})
			}
			w.Run(t, func(c coll.Comm) error { return tc.call(mods[c.Rank()], c) })
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

// TestUnknownAlgorithmWarnsOnce: a rule naming no algorithm of tuned is
// warned of once per process, however many communicators it reaches.
func TestUnknownAlgorithmWarnsOnce(t *testing.T) {
	rules, err := coll.NewRules([]coll.Rule{{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "binomal"}})
	if err != nil {
		t.Fatal(err)
	}
	var out testlog.Buffer
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: &out})
	var warned sync.Map
	for _, comm := range []string{"world", "world.dup", "world.split"} {
		if r := resolveRules(rules, 4, comm, log, &warned); len(r["bcast"]) != 1 || r["bcast"][0].alg != unknownAlg {
			t.Fatalf("%s: resolved %+v, want the rule with no algorithm", comm, r)
		}
	}
	if n := strings.Count(out.String(), "[WARN]"); n != 1 || !strings.Contains(out.String(), `\"binomal\" is not one of the bcast algorithms`) {
		t.Errorf("%d warnings, want 1 naming the algorithm:\n%s", n, out.String())
	}
	if err := CheckRule("bcast", "pipeline"); err != nil {
		t.Errorf("CheckRule of a bcast algorithm: %v", err)
	}
}
