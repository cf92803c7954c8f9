package coll_test

import (
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// The concurrent table takes each collective from the highest-priority
// module that may run calls side by side, whatever serves the blocking one.
func TestBuildConcurrentTable(t *testing.T) {
	var calls []string
	shared := component("shared", func(coll.Comm) (*coll.Module, error) {
		return &coll.Module{
			Barrier: func(coll.Comm) error { calls = append(calls, "shared"); return nil },
			Bcast:   func(coll.Comm, []byte, int) error { calls = append(calls, "shared bcast"); return nil },
		}, nil
	})
	p2p := component("p2p", func(coll.Comm) (*coll.Module, error) {
		return &coll.Module{
			Concurrent: true,
			Barrier:    func(coll.Comm) error { calls = append(calls, "p2p"); return nil },
		}, nil
	})
	c := colltest.NewWorld(1).Comm(0)
	tab, err := coll.Build(c, []coll.Candidate{
		{Name: "shared", Component: shared, Priority: 90},
		{Name: "p2p", Component: p2p, Priority: 10},
	}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Provider("barrier") + "," + tab.ConcurrentProvider("barrier") + "," + tab.ConcurrentProvider("bcast"); got != "shared,p2p," {
		t.Fatalf("providers %q, want shared,p2p, (blocking barrier, concurrent barrier, concurrent bcast)", got)
	}
	if err := tab.Barrier(c); err != nil {
		t.Fatal(err)
	}
	if err := tab.Concurrent().Barrier(c); err != nil {
		t.Fatal(err)
	}
	if tab.Concurrent().Bcast != nil {
		t.Fatal("the concurrent table has a bcast though only a module that is not concurrent provides one")
	}
	if want := "shared,p2p"; calls[0]+","+calls[1] != want {
		t.Fatalf("calls %q, want %s", calls, want)
	}
}
