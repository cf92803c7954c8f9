package pmpi_test

import (
	"runtime"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// testAside: with one P, work that runs in a goroutine of its own (an
// Idup's agreement) counts as work aside from its start, so that waiters
// yield to it at every poll, and stops counting once done. Without that, a Wait polled 64 times between
// yields, and an Idup of 4 ranks on 2 CPUs took a millisecond.
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
	if !pmpi.WorkAside(w) {
		t.Error("an Idup's agreement, begun in a goroutine that has not run yet, is not counted as work aside")
	}
	if _, err := api.Wait(r); err != nil {
		t.Fatal(err)
	}
	if err := api.CommFree(c); err != nil {
		t.Fatal(err)
	}
	settled("after the Idup")
}
