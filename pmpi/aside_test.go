package pmpi_test

import (
	"runtime"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// testAside: with one P an Idup defers its agreement to the rank's next
// poll, so that a Wait right after it runs the agreement itself and no
// goroutine is made; a loop of Tests starts the goroutine, counts it as
// work aside, to which waiters and Tests yield at every poll, and stops
// counting it once it is done.
func testAside(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	settled := func(what string) {
		t.Helper()
		for range 1_000_000 {
			if !pmpi.WorkAside(w) {
				return
			}
			runtime.Gosched()
		}
		t.Errorf("%s: work aside still counted after its goroutine had a million chances to end", what)
	}
	settled("before")

	c, r, err := api.CommIdup(w)
	if err != nil {
		t.Fatal(err)
	}
	if pmpi.WorkAside(w) {
		t.Error("an Idup with one P started a goroutine at once, before any poll")
	}
	if _, err := api.Wait(r); err != nil {
		t.Fatal(err)
	}
	if pmpi.WorkAside(w) {
		t.Error("a Wait right after an Idup left work aside: the agreement ran in a goroutine, not in the Wait")
	}
	if err := api.CommFree(c); err != nil {
		t.Fatal(err)
	}

	c, r, err = api.CommIdup(w)
	if err != nil {
		t.Fatal(err)
	}
	done := false
	for i := 0; i < 1_000_000 && !done; i++ {
		if _, done, err = api.Test(r); err != nil {
			t.Fatal(err)
		}
	}
	if !done {
		t.Fatal("an Idup's request is not complete after a million Tests")
	}
	if err := api.CommFree(c); err != nil {
		t.Fatal(err)
	}
	settled("after an Idup completed by Tests")
}
