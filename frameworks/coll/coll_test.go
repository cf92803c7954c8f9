package coll_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
)

// fake offers a module that provides the collectives listed.
type fake struct {
	coll.BaseComponent
	offer   func(c coll.Comm) (*coll.Module, error)
	freed   *int
	queried int
}

func (f *fake) CommQuery(c coll.Comm, q coll.Query) (int, *coll.Module, error) {
	f.queried++
	m, err := f.offer(c)
	if m != nil && f.freed != nil {
		m.Free = func() error { *f.freed++; return nil }
	}
	return q.Priority, m, err
}

func component(name string, offer func(coll.Comm) (*coll.Module, error)) *fake {
	info := coll.Info(name, mca.Version{Major: 1}, 0, func() mca.Component { return &fake{offer: offer} })
	return info.Instantiate().(*fake)
}

func barrierOnly(calls *[]string, name string) func(coll.Comm) (*coll.Module, error) {
	return func(coll.Comm) (*coll.Module, error) {
		return &coll.Module{Barrier: func(coll.Comm) error { *calls = append(*calls, name); return nil }}, nil
	}
}

func TestBuildStacksPerCollective(t *testing.T) {
	var calls []string
	freed := 0
	low := component("low", func(coll.Comm) (*coll.Module, error) {
		return &coll.Module{
			Barrier: func(coll.Comm) error { calls = append(calls, "low"); return nil },
			Bcast:   func(coll.Comm, []byte, int) error { calls = append(calls, "low bcast"); return nil },
		}, nil
	})
	high := component("high", barrierOnly(&calls, "high"))
	none := component("none", func(coll.Comm) (*coll.Module, error) { return nil, nil })
	low.freed, high.freed = &freed, &freed
	c := colltest.NewWorld(1).Comm(0)
	tab, err := coll.Build(c, []coll.Candidate{
		{Name: "low", Component: low, Priority: 10},
		{Name: "none", Component: none, Priority: 90},
		{Name: "high", Component: high, Priority: 50},
	}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(tab.Barrier(c), tab.Bcast(c, nil, 0)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"high", "low bcast"}; !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q: barrier from the higher priority, bcast from the only provider", calls, want)
	}
	if got := tab.Provider("barrier") + "," + tab.Provider("bcast") + "," + tab.Provider("reduce"); got != "high,low," {
		t.Fatalf("providers %q, want high,low,", got)
	}
	if tab.Reduce != nil {
		t.Fatal("reduce has a function though no module provides it")
	}
	if err := tab.Free(); err != nil || freed != 2 {
		t.Fatalf("Free: %v, %d modules freed, want 2", err, freed)
	}
	if none.queried != 1 {
		t.Fatalf("a declining component was queried %d times, want 1", none.queried)
	}
}

func TestBuildReportsAFailingQuery(t *testing.T) {
	freed := 0
	ok := component("ok", func(coll.Comm) (*coll.Module, error) { return &coll.Module{}, nil })
	ok.freed = &freed
	bad := component("bad", func(coll.Comm) (*coll.Module, error) { return nil, context.DeadlineExceeded })
	_, err := coll.Build(colltest.NewWorld(1).Comm(0), []coll.Candidate{
		{Name: "ok", Component: ok, Priority: 20}, {Name: "bad", Component: bad, Priority: 10},
	}, coll.Host{})
	if !errors.Is(err, context.DeadlineExceeded) || freed != 1 {
		t.Fatalf("Build: %v (%d modules freed), want the query's error and the built module freed", err, freed)
	}
}

func TestNegativePriorityDeclines(t *testing.T) {
	var calls []string
	freed := 0
	off := component("off", barrierOnly(&calls, "off"))
	off.freed = &freed
	c := colltest.NewWorld(1).Comm(0)
	tab, err := coll.Build(c, []coll.Candidate{{Name: "off", Component: off, Priority: -1}}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	if p := tab.Provider("barrier"); p != "" || tab.Barrier != nil {
		t.Fatalf("barrier from %q, want none: a module offered with a negative priority serves nothing", p)
	}
	if err := tab.Free(); err != nil || freed != 1 {
		t.Fatalf("Free: %v, %d declined modules freed, want 1", err, freed)
	}
}

func TestEqualPrioritiesKeepCandidateOrder(t *testing.T) {
	var calls []string
	a := component("a", barrierOnly(&calls, "a"))
	b := component("b", barrierOnly(&calls, "b"))
	c := colltest.NewWorld(1).Comm(0)
	tab, err := coll.Build(c, []coll.Candidate{{Name: "a", Component: a, Priority: 5}, {Name: "b", Component: b, Priority: 5}}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Provider("barrier") != "a" {
		t.Fatalf("barrier from %q, want a (the earlier candidate)", tab.Provider("barrier"))
	}
}

func TestSendrecvThroughColltest(t *testing.T) {
	w := colltest.NewWorld(3)
	w.Run(t, func(c coll.Comm) error {
		n := c.Size()
		got := make([]byte, 1)
		if err := coll.Sendrecv(c, []byte{byte(c.Rank())}, (c.Rank()+1)%n, got, (c.Rank()+n-1)%n, 1); err != nil {
			return err
		}
		if int(got[0]) != (c.Rank()+n-1)%n {
			return errors.New("wrong neighbour's byte")
		}
		return nil
	})
}

// exchanging is a Comm whose sends in an exchange are counted.
type exchanging struct {
	coll.Comm
	exchanges *atomic.Int32
}

func (x exchanging) SendInExchange(buf []byte, dest, tag int) error {
	x.exchanges.Add(1)
	return x.Comm.Send(buf, dest, tag)
}

// A Comm that tells sends in an exchange apart gets Sendrecv's as such.
func TestSendrecvSendsInExchange(t *testing.T) {
	w := colltest.NewWorld(2)
	var n atomic.Int32
	w.Run(t, func(c coll.Comm) error {
		got := make([]byte, 1)
		if err := coll.Sendrecv(exchanging{c, &n}, []byte{byte(c.Rank())}, 1-c.Rank(), got, 1-c.Rank(), 1); err != nil {
			return err
		}
		if int(got[0]) != 1-c.Rank() {
			return errors.New("wrong neighbour's byte")
		}
		return nil
	})
	if n.Load() != 2 {
		t.Errorf("%d sends went as halves of an exchange, want 2", n.Load())
	}
}

// decider is a fake decider: it gives each rank the rules rulesFor returns
// and runs no collectives.
type decider struct {
	coll.BaseComponent
	rulesFor func(c coll.Comm) (*coll.Rules, error)
	asked    int
}

func (d *decider) CommQuery(coll.Comm, coll.Query) (int, *coll.Module, error) { return 0, nil, nil }

func (d *decider) CommRules(c coll.Comm) (*coll.Rules, error) {
	d.asked++
	return d.rulesFor(c)
}

// rulesSeen is a component that records the rules its CommQuery receives.
type rulesSeen struct {
	coll.BaseComponent
	seen []*coll.Rules
}

func (r *rulesSeen) CommQuery(c coll.Comm, q coll.Query) (int, *coll.Module, error) {
	r.seen[c.Rank()] = q.Rules
	return q.Priority, &coll.Module{Barrier: func(coll.Comm) error { return nil }}, nil
}

func TestBuildHandsTheDecidersRulesToEveryComponent(t *testing.T) {
	mk := func(alg string) *coll.Rules {
		r, err := coll.NewRules([]coll.Rule{{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Any, Algorithm: alg}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	same, other := mk("linear"), mk("binomial")
	for _, tc := range []struct {
		name    string
		rules   func(c coll.Comm) (*coll.Rules, error)
		want    *coll.Rules
		dropped bool // the members disagreed: the table says so
	}{
		{"same everywhere", func(coll.Comm) (*coll.Rules, error) { return same, nil }, same, false},
		{"none", func(coll.Comm) (*coll.Rules, error) { return nil, nil }, nil, false},
		{"failed everywhere", func(coll.Comm) (*coll.Rules, error) { return nil, errors.New("gone") }, nil, false},
		{"failed on one rank", func(c coll.Comm) (*coll.Rules, error) {
			if c.Rank() == 2 {
				return nil, errors.New("gone")
			}
			return same, nil
		}, nil, true},
		{"different on one rank", func(c coll.Comm) (*coll.Rules, error) {
			if c.Rank() == 4 {
				return other, nil
			}
			return same, nil
		}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 5
			w := colltest.NewWorld(n)
			seen := &rulesSeen{seen: make([]*coll.Rules, n)}
			deciders := make([]*decider, n)
			tables := make([]*coll.Table, n)
			w.Run(t, func(c coll.Comm) error {
				d := &decider{rulesFor: tc.rules}
				deciders[c.Rank()] = d
				var err error
				tables[c.Rank()], err = coll.Build(c, []coll.Candidate{
					{Name: "low-decider", Component: &decider{rulesFor: func(coll.Comm) (*coll.Rules, error) {
						return nil, errors.New("a lower-priority decider must not be asked")
					}}, Priority: 1},
					{Name: "decider", Component: d, Priority: 50},
					{Name: "seen", Component: seen, Priority: 10},
				}, coll.Host{})
				return err
			})
			for r := range n {
				if seen.seen[r] != tc.want || tables[r].Rules() != tc.want {
					t.Errorf("rank %d: CommQuery got rules %p, the table %p; want %p", r, seen.seen[r], tables[r].Rules(), tc.want)
				}
				if tables[r].RulesDropped() != tc.dropped {
					t.Errorf("rank %d: RulesDropped %v, want %v", r, tables[r].RulesDropped(), tc.dropped)
				}
				if deciders[r].asked != 1 {
					t.Errorf("rank %d: the decider was asked %d times, want once", r, deciders[r].asked)
				}
				if p := tables[r].Provider("barrier"); p != "seen" {
					t.Errorf("rank %d: barrier from %q; the decider's nil module must not count", r, p)
				}
			}
		})
	}
}

func TestAgreeDecidersDropsADeciderMissingOnSomeRanks(t *testing.T) {
	const n = 4
	for _, tc := range []struct {
		name     string
		has      func(rank int) bool
		wantKept bool
	}{
		{"everywhere", func(int) bool { return true }, true},
		{"nowhere", func(int) bool { return false }, false},
		{"missing on rank 3", func(r int) bool { return r != 3 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := colltest.NewWorld(n)
			kept := make([][]coll.Candidate, n)
			dropped := make([]bool, n)
			w.Run(t, func(c coll.Comm) error {
				cands := []coll.Candidate{{Name: "seen", Component: &rulesSeen{seen: make([]*coll.Rules, n)}, Priority: 10}}
				if tc.has(c.Rank()) {
					cands = append(cands, coll.Candidate{Name: "decider", Component: &decider{}, Priority: 50})
				}
				var err error
				kept[c.Rank()], dropped[c.Rank()], err = coll.AgreeDeciders(c, cands)
				return err
			})
			for r := range n {
				hasDecider := len(kept[r]) == 2
				if hasDecider != (tc.wantKept && tc.has(r)) {
					t.Errorf("rank %d kept %d candidates", r, len(kept[r]))
				}
				if dropped[r] != (tc.has(r) && !tc.wantKept) {
					t.Errorf("rank %d: dropped = %v", r, dropped[r])
				}
			}
		})
	}
}
