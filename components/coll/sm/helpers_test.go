package sm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	_ "github.com/gompi/gompi/components/coll/basic" // registers the component below sm
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
)

// sizes are the communicator sizes the collectives run on.
var sizes = []int{2, 3, 4, 5, 6, 7, 8, 9}

// worldSeq makes every world's Host.ID unique in the process.
var worldSeq atomic.Int64

// errAborted ends the waits of the other ranks once one rank of a world
// failed, so that a failing test reports instead of hanging.
var errAborted = errors.New("another rank of the test world failed")

// testComm is a rank's communicator: colltest's, with a Poll that yields
// to the other ranks' goroutines (the module's own yield gives the CPU
// to other processes only) and can be made to report a failed member.
type testComm struct {
	coll.Comm
	w     *world
	sends atomic.Int64 // messages sent: the next module's traffic
	recvs atomic.Int64

	polls     atomic.Int64
	failAfter int64 // Poll fails from this call on, if > 0
	failErr   error
	dropTo    int // a rank that left the call: sends to it are dropped, if >= 0

	nonBlocking atomic.Bool // what NonBlocking reports
}

// dropped is a send to a rank that left: complete, and never delivered.
type dropped struct{}

func (dropped) Done() bool  { return true }
func (dropped) Wait() error { return nil }

var (
	_ coll.Poller      = (*testComm)(nil)
	_ coll.NonBlocking = (*testComm)(nil)
)

func (c *testComm) NonBlocking() bool { return c.nonBlocking.Load() }

func (c *testComm) Blocked(string, int) func() { return func() {} }

func (c *testComm) Poll() error {
	runtime.Gosched()
	if n := c.polls.Add(1); c.failAfter > 0 && n >= c.failAfter {
		return c.failErr
	}
	if c.w != nil && c.w.abort.Load() {
		return errAborted
	}
	return nil
}

func (c *testComm) Send(buf []byte, dest, tag int) error {
	c.sends.Add(1)
	if dest == c.dropTo {
		return nil
	}
	return c.Comm.Send(buf, dest, tag)
}

func (c *testComm) Isend(buf []byte, dest, tag int) coll.Request {
	c.sends.Add(1)
	if dest == c.dropTo {
		return dropped{}
	}
	return c.Comm.Isend(buf, dest, tag)
}

func (c *testComm) Recv(buf []byte, src, tag int) error {
	c.recvs.Add(1)
	return c.Comm.Recv(buf, src, tag)
}

func (c *testComm) Irecv(buf []byte, src, tag int) coll.Request {
	c.recvs.Add(1)
	return c.Comm.Irecv(buf, src, tag)
}

// world is a colltest world whose ranks each have their own table built
// from sm over basic, as each process has its own.
type world struct {
	n      int
	cw     *colltest.World
	comms  []*testComm
	tables []*coll.Table
	comps  []*Component // sm's, by rank, from build
	dir    string
	id     string
	log    hclog.Logger // the components', from build; nil: none
	abort  atomic.Bool
}

func newWorld(t *testing.T, n int) *world {
	t.Helper()
	w := &world{n: n, cw: colltest.NewWorld(n), dir: t.TempDir(), id: fmt.Sprintf("test.%d", worldSeq.Add(1))}
	for r := range n {
		w.comms = append(w.comms, &testComm{Comm: w.cw.Comm(r), w: w, dropTo: -1})
	}
	return w
}

// host is what every rank is told: one node, the world's ID.
func (w *world) host() coll.Host { return coll.Host{OneNode: true, ID: w.id} }

// segPath is where the world's segment file lives while it is set up.
func (w *world) segPath() string { return filepath.Join(w.dir, "gompi."+w.id+".coll") }

// basicComponent is a fresh coll basic, as the MCA instantiates it.
func basicComponent(t testing.TB) coll.Component {
	t.Helper()
	for _, reg := range mca.DefaultRegistry().Components(coll.Name) {
		if reg.Name == "basic" {
			return reg.Instantiate().(coll.Component)
		}
	}
	t.Fatal("coll basic is not registered")
	return nil
}

// build builds every rank's table from sm, configured by cfg(rank), over
// basic, and frees them when the test ends; with w.comps set, from those
// components (cfg unused), which the test closes.
func (w *world) build(t *testing.T, host coll.Host, cfg func(rank int) config) {
	t.Helper()
	w.tables = make([]*coll.Table, w.n)
	if w.comps == nil {
		w.comps = make([]*Component, w.n)
		for r := range w.comps {
			w.comps[r] = &Component{cfg: cfg(r), log: w.log}
		}
		t.Cleanup(func() {
			for r, comp := range w.comps {
				if err := comp.Close(); err != nil {
					t.Errorf("rank %d: close: %v", r, err)
				}
			}
		})
	}
	w.run(t, func(r int, c *testComm) error {
		cands := []coll.Candidate{
			{Name: "sm", Component: w.comps[r], Priority: 50},
			{Name: "basic", Component: basicComponent(t), Priority: 10},
		}
		tab, err := coll.Build(c, cands, host)
		w.tables[r] = tab
		if err == nil && tab.Provider("barrier") == "sm" {
			// sm maps the segment at the first call it serves (lazy.go; the
			// tests' config has no early calls):
			// a barrier now leaves the tests' calls only their own work.
			err = tab.Barrier(c)
		}
		return err
	})
	if t.Failed() {
		t.FailNow()
	}
	t.Cleanup(func() { w.free(t) })
}

// free frees every rank's table.
func (w *world) free(t *testing.T) {
	for r, tab := range w.tables {
		if tab != nil {
			if err := tab.Free(); err != nil {
				t.Errorf("rank %d: free: %v", r, err)
			}
			w.tables[r] = nil
		}
	}
}

// buildSm builds the usual world: every rank alike, maxBytes per rank.
func (w *world) buildSm(t *testing.T, maxBytes int) {
	t.Helper()
	w.build(t, w.host(), func(int) config { return config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir} })
	for r, tab := range w.tables {
		if p := tab.Provider("allreduce"); p != "sm" {
			t.Fatalf("rank %d: allreduce served by %q, want sm", r, p)
		}
	}
}

// epochsBytes is the block of the worlds of epochsWorld.
const epochsBytes = 64

// epochsWorld builds a world of n ranks with blocks of epochsBytes, on a
// host oversubscribed or not, and returns it with a mixed sequence of 300
// calls for it (sequence).
func epochsWorld(t *testing.T, n int, oversubscribed bool) (*world, []call) {
	t.Helper()
	w := newWorld(t, n)
	host := w.host()
	host.Oversubscribed = oversubscribed
	w.build(t, host, func(int) config { return config{maxBytes: epochsBytes, maxRanks: 16, dir: w.dir} })
	return w, sequence(n, epochsBytes, 300)
}

// run calls f on every rank at once; a rank that fails aborts the others'
// waits.
func (w *world) run(t testing.TB, f func(r int, c *testComm) error) {
	t.Helper()
	w.cw.Run(t, func(c coll.Comm) error {
		err := f(c.Rank(), w.comms[c.Rank()])
		if err != nil {
			w.abort.Store(true)
		}
		return err
	})
}

// runCalls makes every call on every rank and checks each. A rank that
// fails goes on with the others' calls, so that basic's messages still
// match and no rank waits forever; the abort ends the others' sm waits.
func (w *world) runCalls(t testing.TB, calls []call) {
	t.Helper()
	w.run(t, func(r int, c *testComm) error {
		var first error
		for i, x := range calls {
			if err := x.do(w.tables[r], c, r, w.n); err != nil && first == nil {
				first = fmt.Errorf("call %d (%v): %w", i, x, err)
				w.abort.Store(true)
			}
		}
		return first
	})
}

// sends counts the messages every rank has sent so far.
func (w *world) sends() int64 {
	var s int64
	for _, c := range w.comms {
		s += c.sends.Load()
	}
	return s
}

var testOps = []colltest.OpCase{colltest.SumCase, colltest.AffineCase, colltest.MatMulCase}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// mappings counts this process's mappings of path (deleted or not).
func mappings(t *testing.T, path string) int {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	n := 0
	for _, l := range strings.Split(string(maps), "\n") {
		if strings.Contains(l, " "+path) {
			n++
		}
	}
	return n
}
