package basic

import (
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
)

func TestRegistered(t *testing.T) {
	for _, reg := range mca.DefaultRegistry().Components(coll.Name) {
		if reg.Name != "basic" {
			continue
		}
		if reg.DefaultPriority != 10 || reg.Version != (mca.Version{Major: 1}) {
			t.Errorf("registered with priority %d, version %v; want 10, 1.0.0", reg.DefaultPriority, reg.Version)
		}
		if _, ok := reg.New().(coll.Component); !ok {
			t.Errorf("%T is not a coll.Component", reg.New())
		}
		return
	}
	t.Fatal("coll basic is not registered")
}

// TestProvidesEverything builds a communicator's table from basic alone:
// it serves every collective, at the priority it is given, on any size.
func TestProvidesEverything(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		c := colltest.NewWorld(n).Comm(0)
		prio, mod, err := newComponent().CommQuery(c, coll.Query{Priority: 42})
		if err != nil || mod == nil || prio != 42 {
			t.Fatalf("n=%d: CommQuery = %d, %v, %v; want 42, a module, nil", n, prio, mod, err)
		}
		table, err := coll.Build(c, []coll.Candidate{{Name: "basic", Component: newComponent(), Priority: 10}}, coll.Host{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range coll.Collectives {
			if p := table.Provider(name); p != "basic" {
				t.Errorf("n=%d: %s is served by %q", n, name, p)
			}
		}
		if err := table.Free(); err != nil {
			t.Error(err)
		}
	}
}
