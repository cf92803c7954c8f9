package sm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/internal/testlog"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

func TestRegistered(t *testing.T) {
	for _, reg := range mca.DefaultRegistry().Components(coll.Name) {
		if reg.Name != "sm" {
			continue
		}
		if reg.DefaultPriority != 50 || reg.Version != (mca.Version{Major: 1}) {
			t.Errorf("registered with priority %d, version %v; want 50, 1.0.0", reg.DefaultPriority, reg.Version)
		}
		if _, ok := reg.Instantiate().(*Component); !ok {
			t.Errorf("%T is not sm's Component", reg.Instantiate())
		}
		return
	}
	t.Fatal("coll sm is not registered")
}

// open registers and opens an sm component the way the MCA core does,
// with settings as name, value pairs from the command line.
func open(t *testing.T, settings ...string) (*Component, error) {
	t.Helper()
	c := info.Instantiate().(*Component)
	reg := params.NewRegistry()
	r := reg.Scope(coll.Name, "sm")
	if err := c.RegisterParams(r); err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var in params.Inputs
	for i := 0; i+1 < len(settings); i += 2 {
		in.CommandLine = append(in.CommandLine, params.Setting{Name: settings[i], Value: settings[i+1]})
	}
	snap, err := reg.Resolve(in)
	if err != nil {
		return nil, err
	}
	// No logger: Open supplies one.
	return c, c.Open(context.Background(), &mca.Env{Params: snap, Priority: 50})
}

func TestParams(t *testing.T) {
	c, err := open(t)
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{maxBytes: defaultMaxBytes, maxRanks: defaultMaxRanks, dir: "/dev/shm", path: modeTimed,
		segmentAfter: defaultSegmentAfter, forced: map[string]bool{}}); !reflect.DeepEqual(c.cfg, want) {
		t.Errorf("default config %+v, want %+v", c.cfg, want)
	}
	if c.log == nil {
		t.Error("Open left no logger")
	}
	c, err = open(t, "coll_sm_max_bytes", "2k", "coll_sm_max_ranks", "4", "coll_sm_backing_directory", "/tmp/x",
		"coll_sm_path", "next", "coll_sm_segment_after", "5")
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{maxBytes: 2048, maxRanks: 4, dir: "/tmp/x", dirSet: true, path: modeNext, segmentAfter: 5, forced: map[string]bool{}}); !reflect.DeepEqual(c.cfg, want) {
		t.Errorf("config %+v, want %+v", c.cfg, want)
	}
	for _, bad := range [][2]string{
		{"coll_sm_max_ranks", "1"},
		{"coll_sm_max_ranks", "257"},
		{"coll_sm_max_bytes", "2m"},
		{"coll_sm_max_bytes", "-1"},
		{"coll_sm_path", "fastest"},
		{"coll_sm_segment_after", "-1"},
		{"coll_sm_segment_after", "1073741825"},
		{"coll_sm_backing_directory", "shm"},
	} {
		if _, err := open(t, bad[0], bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
}

// TestSegmentNameRemoved: once every rank mapped the segment, its name is
// gone, while every rank still maps it.
func TestSegmentNameRemoved(t *testing.T) {
	for _, n := range []int{2, 5, 9} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			w := newWorld(t, n)
			w.buildSm(t, 64)
			if names := dirEntries(t, w.dir); len(names) != 0 {
				t.Errorf("the backing directory holds %v after set-up", names)
			}
			if got := mappings(t, w.segPath()); got != n {
				t.Errorf("%d mappings of %s, want one per rank (%d)", got, w.segPath(), n)
			}
		})
	}
}

// expectDeclined checks that no rank mapped sm's segment at the first
// call (build's barrier), and that the calls go to basic on every rank.
func expectDeclined(t *testing.T, w *world) {
	t.Helper()
	if got := mappings(t, w.segPath()); got != 0 {
		t.Errorf("%d mappings of the segment, want none", got)
	}
	before := w.sends()
	w.runCalls(t, []call{{k: kAllreduce, size: 3, op: testOps[0], seed: 1}})
	if w.sends() == before {
		t.Error("an allreduce sent no message: it did not go to basic")
	}
}

// expectWorks runs a few collectives, which must give the right results.
func expectWorks(t *testing.T, w *world) {
	t.Helper()
	calls := []call{
		{k: kBarrier},
		{k: kAllreduce, size: 3, op: testOps[0], seed: 1},
		{k: kBcast, root: w.n - 1, size: 5, seed: 2},
		{k: kAlltoall, size: 2, seed: 3},
	}
	w.runCalls(t, calls)
}

// TestStaleFileDeclines: a file already at the segment's path (a killed
// job's, or another job's) makes every rank decline, and is left alone.
func TestStaleFileDeclines(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			w := newWorld(t, n)
			stale := filepath.Join(w.dir, "gompi."+w.id+".coll")
			if err := os.WriteFile(stale, []byte("another job's"), 0o600); err != nil {
				t.Fatal(err)
			}
			w.build(t, w.host(), func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: w.dir} })
			expectDeclined(t, w)
			expectWorks(t, w)
			if b, err := os.ReadFile(stale); err != nil || string(b) != "another job's" {
				t.Errorf("the stale file was touched: %q, %v", b, err)
			}
		})
	}
}

// TestMissingDirectoryDeclines: no backing directory and no session
// directory: no module, no error.
func TestMissingDirectoryDeclines(t *testing.T) {
	w := newWorld(t, 3)
	missing := filepath.Join(w.dir, "missing")
	w.build(t, w.host(), func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: missing} })
	expectDeclined(t, w)
	expectWorks(t, w)
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing directory was made: %v", err)
	}
}

// TestMissingDirectoryFallsBack: with a session directory, a backing
// directory that refuses the segment leaves it to the session directory,
// with a warning where the user chose it (once per process: here, per
// rank 0's component) and an info line where the default was refused.
func TestMissingDirectoryFallsBack(t *testing.T) {
	for _, set := range []bool{true, false} {
		t.Run(fmt.Sprintf("set=%v", set), func(t *testing.T) {
			w := newWorld(t, 3)
			var logs testlog.Buffer
			w.log = hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info, DisableTime: true})
			missing := filepath.Join(w.dir, "missing")
			host := w.host()
			host.SessionDir = w.dir
			w.build(t, host, func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: missing, dirSet: set} })
			if got := mappings(t, w.segPath()); got != w.n {
				t.Errorf("%d mappings of %s, want one per rank (%d)", got, w.segPath(), w.n)
			}
			expectWorks(t, w)
			level := "[INFO]"
			if set {
				level = "[WARN]"
			}
			want := "backing directory unusable; using the session directory: directory=" + missing
			if got := logs.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, level) || !strings.Contains(got, want) {
				t.Errorf("log %q, want one line at %s with %q", got, level, want)
			}
			if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the missing directory was made: %v", err)
			}
		})
	}
}

// TestMemberCannotMap: a rank whose segment would differ (its own
// coll_sm_max_bytes) cannot map rank 0's: every rank declines, and rank 0
// removes the file. 100 bytes make blocks as long as 128 do: only the
// header tells them apart.
func TestMemberCannotMap(t *testing.T) {
	if newLayout(3, 100).size() != newLayout(3, 128).size() {
		t.Fatal("the layouts of 100 and 128 bytes differ in size: pick another pair")
	}
	for _, tc := range []struct{ odd, maxBytes int }{{0, 256}, {2, 256}, {0, 100}, {1, 100}} {
		t.Run(fmt.Sprintf("rank%d/max%d", tc.odd, tc.maxBytes), func(t *testing.T) {
			w := newWorld(t, 3)
			w.build(t, w.host(), func(r int) config {
				if r == tc.odd {
					return config{maxBytes: tc.maxBytes, maxRanks: 16, dir: w.dir}
				}
				return config{maxBytes: 128, maxRanks: 16, dir: w.dir}
			})
			expectDeclined(t, w)
			expectWorks(t, w)
			if names := dirEntries(t, w.dir); len(names) != 0 {
				t.Errorf("the backing directory holds %v", names)
			}
			if got := mappings(t, w.segPath()); got != 0 {
				t.Errorf("%d mappings of the declined segment remain", got)
			}
		})
	}
}

// noPoll hides a comm's Poll: sm cannot wait on such a communicator.
type noPoll struct{ coll.Comm }

// TestDeclinesWithoutMessages: communicators sm cannot serve are declined
// on the spot, by every rank alike, without a message or a file.
func TestDeclinesWithoutMessages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		oneOff bool // Host.OneNode false
		noID   bool
		cfg    config // dir is set below
		noPoll bool
	}{
		{name: "size1", n: 1, cfg: config{maxBytes: 64, maxRanks: 16}},
		{name: "not-one-node", n: 3, oneOff: true, cfg: config{maxBytes: 64, maxRanks: 16}},
		{name: "no-id", n: 3, noID: true, cfg: config{maxBytes: 64, maxRanks: 16}},
		{name: "max-bytes-0", n: 3, cfg: config{maxBytes: 0, maxRanks: 16}},
		{name: "above-max-ranks", n: 5, cfg: config{maxBytes: 64, maxRanks: 4}},
		{name: "no-poller", n: 3, cfg: config{maxBytes: 64, maxRanks: 16}, noPoll: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.n)
			host := w.host()
			host.OneNode = !tc.oneOff
			if tc.noID {
				host.ID = ""
			}
			cfg := tc.cfg
			cfg.dir = w.dir
			w.run(t, func(r int, c *testComm) error {
				var comm coll.Comm = c
				if tc.noPoll {
					comm = noPoll{c}
				}
				comp := &Component{cfg: cfg}
				prio, mod, err := comp.CommQuery(comm, coll.Query{Priority: 50, Host: host})
				if mod != nil || err != nil {
					return fmt.Errorf("CommQuery = %d, %v, %v; want a nil module and no error", prio, mod, err)
				}
				if s, rv := c.sends.Load(), c.recvs.Load(); s != 0 || rv != 0 {
					return fmt.Errorf("%d sends and %d receives", s, rv)
				}
				return nil
			})
			if names := dirEntries(t, w.dir); len(names) != 0 {
				t.Errorf("the backing directory holds %v", names)
			}
		})
	}
}

// TestPassedErrors: an error of a call that sm passed to the next
// component says so, since the caller names sm as the collective's
// component; below's fallback, sm's own error, does not.
func TestPassedErrors(t *testing.T) {
	m := &module{}
	m.below(&coll.Module{Bcast: func(coll.Comm, []byte, int) error { return errFailed }})
	err := m.unready(errNoSegment, func() error { return m.next.Bcast(nil, nil, 0) })
	if !errors.Is(err, errFailed) || !strings.HasPrefix(err.Error(), "passed to the next component: ") {
		t.Errorf("the next component's failure: %v, want it, passed to the next component", err)
	}
	err = m.unready(errNoSegment, func() error { return m.next.Barrier(nil) })
	if !errors.Is(err, coll.ErrNoProvider) || strings.Contains(err.Error(), "passed to the next component") {
		t.Errorf("no component below: %v, want ErrNoProvider from sm itself", err)
	}
}

// TestNoNextModule: without a component below sm, a call too large for
// the segment fails on every rank with ErrNoProvider, and the calls that
// fit still work afterwards.
func TestNoNextModule(t *testing.T) {
	const n, maxBytes = 3, 48
	w := newWorld(t, n)
	w.tables = make([]*coll.Table, n)
	w.run(t, func(r int, c *testComm) error {
		comp := &Component{cfg: config{maxBytes: maxBytes, maxRanks: 16, dir: w.dir}}
		tab, err := coll.Build(c, []coll.Candidate{{Name: "sm", Component: comp, Priority: 50}}, w.host())
		w.tables[r] = tab
		return err
	})
	if t.Failed() {
		t.FailNow()
	}
	defer func() {
		for _, tab := range w.tables {
			if err := tab.Free(); err != nil {
				t.Error(err)
			}
		}
	}()
	var large []call
	for k := kBcast; k < nKinds; k++ {
		for _, x := range boundaryCalls(k, n, maxBytes) {
			if x.contribution(n) > maxBytes {
				large = append(large, x)
				break
			}
		}
	}
	w.run(t, func(r int, c *testComm) error {
		for _, x := range large {
			if err := x.do(w.tables[r], c, r, n); !errors.Is(err, coll.ErrNoProvider) {
				return fmt.Errorf("%v: %v, want ErrNoProvider", x, err)
			} else if strings.Contains(err.Error(), "coll sm") || strings.Contains(err.Error(), " on colltest") {
				// The caller names the component, the collective and the communicator.
				return fmt.Errorf("%v: the error names the component or the call: %v", x, err)
			}
		}
		return call{k: kAllreduce, size: 2, op: testOps[0], seed: 9}.do(w.tables[r], c, r, n)
	})
}

// TestSegmentAfter: a communicator's first coll_sm_segment_after calls
// go to the next component, on every rank, with no segment mapped; the
// call after them makes the segment, and the calls after it use it.
func TestSegmentAfter(t *testing.T) {
	const n, after = 3, 4
	w := newWorld(t, n)
	w.build(t, w.host(), func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: w.dir, segmentAfter: after} })
	// build's barrier was the first early call.
	for i := 1; i < after; i++ {
		before := w.sends()
		w.runCalls(t, []call{{k: kAllreduce, size: 3, op: testOps[0], seed: i}})
		if got := mappings(t, w.segPath()); got != 0 {
			t.Fatalf("after %d calls: %d mappings of the segment, want none before call %d", i+1, got, after+1)
		}
		if w.sends() == before {
			t.Fatalf("call %d sent no message: it did not go to the next component", i+1)
		}
	}
	w.runCalls(t, []call{{k: kAllreduce, size: 3, op: testOps[0], seed: after}})
	if got := mappings(t, w.segPath()); got != n {
		t.Fatalf("after %d calls: %d mappings of the segment, want one per rank (%d)", after+1, got, n)
	}
	before := w.sends()
	w.runCalls(t, []call{{k: kAllreduce, size: 3, op: testOps[0], seed: 9}, {k: kBcast, root: 1, size: 5, seed: 10}})
	if w.sends() != before {
		t.Errorf("calls after the set-up sent %d messages, want none: they go through the segment", w.sends()-before)
	}
}

// TestSegmentAtAGroupedReduction: on 3 ranks a reduction whose result
// depends on the grouping (coll.Exact) makes the segment at once, so that
// the next component's grouping never gives one of its calls another
// result; an exact one waits for the early calls.
func TestSegmentAtAGroupedReduction(t *testing.T) {
	const n, after = 3, 100
	w := newWorld(t, n)
	w.build(t, w.host(), func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: w.dir, segmentAfter: after} })
	w.runCalls(t, []call{{k: kAllreduce, size: 3, op: colltest.SumCase, seed: 1}})
	if got := mappings(t, w.segPath()); got != 0 {
		t.Fatalf("after an integer sum: %d mappings of the segment, want none", got)
	}
	w.runCalls(t, []call{{k: kScan, size: 3, op: colltest.AffineCase, seed: 2}})
	if got := mappings(t, w.segPath()); got != n {
		t.Fatalf("after a scan of an inexact operation: %d mappings of the segment, want one per rank (%d)", got, n)
	}
}

// TestSegmentAfterWithoutNext: with no component below to serve the early
// calls, the first call makes the segment.
func TestSegmentAfterWithoutNext(t *testing.T) {
	const n = 2
	w := newWorld(t, n)
	w.tables = make([]*coll.Table, n)
	w.run(t, func(r int, c *testComm) error {
		comp := &Component{cfg: config{maxBytes: 64, maxRanks: 16, dir: w.dir, segmentAfter: 100}}
		tab, err := coll.Build(c, []coll.Candidate{{Name: "sm", Component: comp, Priority: 50}}, w.host())
		w.tables[r] = tab
		if err == nil {
			err = call{k: kAllreduce, size: 3, op: testOps[0], seed: 1}.do(tab, c, r, n)
		}
		return err
	})
	defer func() {
		for _, tab := range w.tables {
			if tab != nil {
				if err := tab.Free(); err != nil {
					t.Error(err)
				}
			}
		}
	}()
	if got := mappings(t, w.segPath()); got != n {
		t.Errorf("after the first call: %d mappings of the segment, want one per rank (%d)", got, n)
	}
}

var errFailed = errors.New("rank 1 failed")

// TestFailedMember: a rank waiting for a member that never arrives
// returns the error Poll reports, whichever wait it is in: a barrier's,
// a read of the member's block, or the wait before reusing a block.
func TestFailedMember(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rank1 []call // what rank 1 does before it stops
		rank0 []call // rank 0's calls; the last one waits for rank 1
	}{
		{"barrier", nil, []call{{k: kBarrier}}},
		{"read", nil, []call{{k: kBcast, root: 1, size: 8}}},
		{"allreduce", nil, []call{{k: kAllreduce, size: 1, op: testOps[0]}}},
		{"reuse", []call{{k: kBarrier}}, []call{{k: kBarrier}, {k: kBcast, size: 8}, {k: kBcast, size: 8}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2)
			w.buildSm(t, 64)
			var got error
			w.cw.Run(t, func(cc coll.Comm) error {
				r := cc.Rank()
				c := w.comms[r]
				tab := w.tables[r]
				if r == 1 {
					for _, x := range tc.rank1 {
						if err := x.do(tab, c, r, 2); err != nil {
							return err
						}
					}
					return nil
				}
				for i, x := range tc.rank0 {
					if i == len(tc.rank0)-1 {
						// Set here, by the rank that polls: the earlier calls may poll too.
						c.failAfter, c.failErr = c.polls.Load()+3, errFailed
						got = x.do(tab, c, r, 2)
						return nil
					}
					if err := x.do(tab, c, r, 2); err != nil {
						return err
					}
				}
				return nil
			})
			if !errors.Is(got, errFailed) {
				t.Fatalf("rank 0's %v returned %v, want the failure Poll reported", tc.rank0[len(tc.rank0)-1].k, got)
			}
			// The caller names the component, the collective and the communicator.
			if strings.Contains(got.Error(), "coll sm") || strings.Contains(got.Error(), " on colltest") {
				t.Errorf("error %q names the component or the call", got)
			}
		})
	}
}

// TestFree: freeing the table leaves every rank's segment in the
// component's pool, and closing the component unmaps it; freeing again is
// harmless.
func TestFree(t *testing.T) {
	const n = 3
	w := newWorld(t, n)
	w.buildSm(t, 64)
	expectWorks(t, w)
	if got := mappings(t, w.segPath()); got != n {
		t.Fatalf("%d mappings before Free, want %d", got, n)
	}
	for r, tab := range w.tables {
		if err := tab.Free(); err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if got := mappings(t, w.segPath()); got != n {
		t.Errorf("%d mappings after Free, want %d (pooled)", got, n)
	}
	for r, comp := range w.comps {
		if err := comp.Close(); err != nil {
			t.Errorf("rank %d: close: %v", r, err)
		}
	}
	if got := mappings(t, w.segPath()); got != 0 {
		t.Errorf("%d mappings after Close, want 0", got)
	}
	for r, tab := range w.tables {
		if err := tab.Free(); err != nil {
			t.Errorf("rank %d: second free: %v", r, err)
		}
	}
}

// TestPooledSegmentIsReused: a communicator made after another was freed
// takes over its segment at its first call, without a new file, and its
// calls go on right; a segment of a communicator whose call failed is not
// pooled.
func TestPooledSegmentIsReused(t *testing.T) {
	const n = 3
	w := newWorld(t, n)
	w.buildSm(t, 64)
	expectWorks(t, w)
	first := w.segPath()
	comps := w.comps
	for r, tab := range w.tables {
		if err := tab.Free(); err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	// A second communicator of the same ranks, on the same components.
	w.id = w.id + ".second"
	w.tables = make([]*coll.Table, n)
	w.run(t, func(r int, c *testComm) error {
		tab, err := coll.Build(c, []coll.Candidate{{Name: "sm", Component: comps[r], Priority: 50},
			{Name: "basic", Component: basicComponent(t), Priority: 10}}, w.host())
		w.tables[r] = tab
		if err == nil {
			err = tab.Barrier(c)
		}
		return err
	})
	if got := mappings(t, w.segPath()); got != 0 {
		t.Errorf("%d mappings of a new segment, want none: the pooled one is reused", got)
	}
	if got := mappings(t, first); got != n {
		t.Errorf("%d mappings of the pooled segment, want %d", got, n)
	}
	expectWorks(t, w)
	before := w.sends()
	w.runCalls(t, []call{{k: kAllreduce, size: 3, op: testOps[0], seed: 4}})
	if w.sends() != before {
		t.Error("an allreduce on the reused segment sent messages")
	}
	for r, comp := range comps {
		for _, e := range comp.pool.entries {
			t.Errorf("rank %d: the pool holds %v while its segment is in use", r, e)
		}
	}
}

// TestSpareModules: a freed communicator's module serves the next
// communicator that its component is asked about, here a smaller one,
// from a fresh state.
func TestSpareModules(t *testing.T) {
	w := newWorld(t, 3)
	w.buildSm(t, 64)
	w.runCalls(t, sequence(3, 64, 100))
	w.free(t)
	w.free(t)
	for r, comp := range w.comps {
		if got := len(comp.spares.mods); got != 1 {
			t.Fatalf("rank %d: %d spare modules after two frees, want 1", r, got)
		}
	}
	w2 := newWorld(t, 2)
	w2.comps = w.comps[:2]
	w2.buildSm(t, 64)
	for r, comp := range w2.comps {
		if got := len(comp.spares.mods); got != 0 {
			t.Errorf("rank %d: %d spare modules after a communicator took one, want 0", r, got)
		}
	}
	w2.runCalls(t, sequence(2, 64, 100))
}

// TestModuleFree calls the module's own Free twice on every rank.
func TestModuleFree(t *testing.T) {
	const n = 4
	w := newWorld(t, n)
	mods := make([]*coll.Module, n)
	w.run(t, func(r int, c *testComm) error {
		comp := &Component{cfg: config{maxBytes: 64, maxRanks: 16, dir: w.dir}}
		prio, mod, err := comp.CommQuery(c, coll.Query{Priority: 50, Host: w.host()})
		if err != nil || mod == nil || prio != 50 {
			return fmt.Errorf("CommQuery = %d, %v, %v; want 50, a module, nil", prio, mod, err)
		}
		mods[r] = mod
		return nil
	})
	if t.Failed() {
		t.FailNow()
	}
	for r, mod := range mods {
		if mod.Free == nil {
			t.Fatalf("rank %d: the module has no Free", r)
		}
		if err := mod.Free(); err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
		if err := mod.Free(); err != nil {
			t.Errorf("rank %d: second free: %v", r, err)
		}
	}
	if got := mappings(t, w.segPath()); got != 0 {
		t.Errorf("%d mappings after Free, want 0", got)
	}
}

// TestPlainPoll runs on colltest's own comm, whose Poll neither yields nor
// fails: the module's waits must make progress by themselves.
func TestPlainPoll(t *testing.T) {
	const n, maxBytes = 3, 64
	cw := colltest.NewWorld(n)
	dir := t.TempDir()
	host := coll.Host{OneNode: true, ID: fmt.Sprintf("test.%d", worldSeq.Add(1))}
	tables := make([]*coll.Table, n)
	cw.Run(t, func(c coll.Comm) error {
		comp := &Component{cfg: config{maxBytes: maxBytes, maxRanks: 16, dir: dir}}
		tab, err := coll.Build(c, []coll.Candidate{
			{Name: "sm", Component: comp, Priority: 50},
			{Name: "basic", Component: basicComponent(t), Priority: 10},
		}, host)
		tables[c.Rank()] = tab
		return err
	})
	if t.Failed() {
		t.FailNow()
	}
	calls := sequence(n, maxBytes, 40)
	cw.Run(t, func(c coll.Comm) error {
		var errs []error // every rank makes every call, failed or not, so that none waits forever
		for i, x := range calls {
			if err := x.do(tables[c.Rank()], c, c.Rank(), n); err != nil {
				errs = append(errs, fmt.Errorf("call %d (%v): %w", i, x, err))
			}
		}
		return errors.Join(append(errs, tables[c.Rank()].Free())...)
	})
}

// TestTunedForced: a tuned algorithm other than auto, where tuned's
// parameter exists, makes sm leave that collective to the next module.
func TestTunedForced(t *testing.T) {
	reg := params.NewRegistry()
	tr := reg.Scope(coll.Name, "tuned")
	for _, name := range []string{"bcast", "allreduce"} {
		tr.String(params.Spec{Name: name + "_algorithm", Default: "auto", Level: 5, Help: "test"})
	}
	if err := tr.Err(); err != nil {
		t.Fatal(err)
	}
	snap, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: "coll_tuned_bcast_algorithm", Value: "2"}}})
	if err != nil {
		t.Fatal(err)
	}
	forced := tunedForced(snap)
	if want := map[string]bool{"bcast": true}; !reflect.DeepEqual(forced, want) {
		t.Fatalf("forced %v, want %v", forced, want)
	}
	w := newWorld(t, 3)
	w.build(t, w.host(), func(int) config { return config{maxBytes: 64, maxRanks: 16, dir: w.dir, forced: forced} })
	for r, tab := range w.tables {
		if p := tab.Provider("bcast"); p != "basic" {
			t.Errorf("rank %d: bcast served by %q, want basic", r, p)
		}
		if p := tab.Provider("allreduce"); p != "sm" {
			t.Errorf("rank %d: allreduce served by %q, want sm", r, p)
		}
	}
}

// TestRulesStepAside: a collective that a decider's rules name is left
// to the next module.
func TestRulesStepAside(t *testing.T) {
	rules, err := coll.NewRules([]coll.Rule{{Collective: "allreduce", Ranks: coll.Range{Min: 1, Max: -1}, Bytes: coll.Range{Min: 0, Max: -1}, Algorithm: "ring"}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, 2)
	w.run(t, func(r int, c *testComm) error {
		sm := &Component{cfg: config{maxBytes: 64, maxRanks: 16, dir: w.dir}}
		prio, mod, err := sm.CommQuery(c, coll.Query{Priority: 50, Rules: rules, Host: w.host()})
		if err != nil || mod == nil || prio != 50 {
			return fmt.Errorf("query: %d %v %v", prio, mod, err)
		}
		defer mod.Free()
		if mod.Allreduce != nil || mod.Bcast == nil {
			return fmt.Errorf("allreduce provided %v, bcast %v: want only bcast", mod.Allreduce != nil, mod.Bcast != nil)
		}
		return nil
	})
}
