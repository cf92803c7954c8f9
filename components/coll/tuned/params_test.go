package tuned

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// open registers and opens a tuned component the way the MCA core does,
// with settings as name, value pairs from the command line.
func open(t *testing.T, log hclog.Logger, settings ...string) (*Component, error) {
	t.Helper()
	c := info.Instantiate().(*Component)
	reg := params.NewRegistry()
	r := reg.Scope(coll.Name, "tuned")
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
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return c, c.Open(context.Background(), &mca.Env{Params: snap, Logger: log, Priority: 30})
}

func TestParamsDefaults(t *testing.T) {
	c, err := open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{bcastSegsize: defaultBcastSegsize, allreduceSegsize: defaultAllreduceSegsize}); c.cfg != want {
		t.Errorf("default config %+v, want %+v", c.cfg, want)
	}
}

func TestParamsByNameAndNumber(t *testing.T) {
	c, err := open(t, nil,
		"coll_tuned_barrier_algorithm", "dissemination",
		"coll_tuned_bcast_algorithm", "3",
		"coll_tuned_reduce_algorithm", "Rabenseifner",
		"coll_tuned_allreduce_algorithm", "ring",
		"coll_tuned_allgather_algorithm", " 2 ",
		"coll_tuned_alltoall_algorithm", "auto",
		"coll_tuned_gather_algorithm", "linear",
		"coll_tuned_scatter_algorithm", "0",
		"coll_tuned_bcast_segsize", "8k",
		"coll_tuned_allreduce_segsize", "0",
	)
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		barrier: barrierDissemination, bcast: bcastPipeline, reduce: reduceRabenseifner,
		allreduce: allreduceRing, allgather: allgatherBruck, alltoall: auto, gather: gatherLinear, scatter: auto,
		bcastSegsize: 8 << 10, allreduceSegsize: 0,
	}
	if c.cfg != want {
		t.Errorf("config %+v, want %+v", c.cfg, want)
	}
}

func TestParamsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		mention     []string
	}{
		{"coll_tuned_allreduce_algorithm", "5", []string{"coll_tuned_allreduce_algorithm", "0 or auto", "4 or ring"}},
		{"coll_tuned_allreduce_algorithm", "-1", []string{"coll_tuned_allreduce_algorithm", "1 or reduce_bcast"}},
		{"coll_tuned_bcast_algorithm", "ring", []string{"coll_tuned_bcast_algorithm", "4 or scatter_allgather"}},
		{"coll_tuned_barrier_algorithm", "", []string{"coll_tuned_barrier_algorithm", "3 or recursive_doubling"}},
		{"coll_tuned_bcast_segsize", "0", []string{"coll_tuned_bcast_segsize", "must be 1 to"}},
	} {
		_, err := open(t, nil, tc.name, tc.value)
		if err == nil || !errors.Is(err, params.ErrInvalidValue) {
			t.Errorf("%s=%q: error %v, want an invalid value", tc.name, tc.value, err)
			continue
		}
		for _, m := range tc.mention {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s=%q: error %q does not mention %q", tc.name, tc.value, err, m)
			}
		}
	}
}

// TestHelpListsAlgorithms checks that every algorithm's number and name
// are in its parameter's help, which gompi_info shows.
func TestHelpListsAlgorithms(t *testing.T) {
	reg := params.NewRegistry()
	r := reg.Scope(coll.Name, "tuned")
	register(r)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []collective{barrierAlgs, bcastAlgs, reduceAlgs, allreduceAlgs, allgatherAlgs, alltoallAlgs, gatherAlgs, scatterAlgs} {
		d, ok := reg.Lookup("coll_tuned_" + k.name + "_algorithm")
		if !ok {
			t.Fatalf("%s: no algorithm parameter", k.name)
		}
		for i, a := range k.algorithms {
			if a.num != i+1 {
				t.Errorf("%s: algorithm %q is number %d at place %d", k.name, a.name, a.num, i+1)
			}
			if !strings.Contains(d.Help, strconv.Itoa(a.num)+" "+a.name) {
				t.Errorf("%s: help does not list %d %s: %s", k.name, a.num, a.name, d.Help)
			}
		}
	}
}

// TestCommQuery builds a communicator's table from the component: tuned
// serves its collectives and leaves the others to the next component.
func TestCommQuery(t *testing.T) {
	c, err := open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := colltest.NewWorld(4)
	tab, err := coll.Build(w.Comm(0), []coll.Candidate{{Name: "tuned", Component: c, Priority: 30}}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall"} {
		if p := tab.Provider(name); p != "tuned" {
			t.Errorf("%s provided by %q", name, p)
		}
	}
	for _, name := range []string{"gatherv", "scatterv", "allgatherv", "alltoallv", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"} {
		if p := tab.Provider(name); p != "" {
			t.Errorf("%s provided by %q, want nobody", name, p)
		}
	}
}

// TestTraceAndFallback checks the per-call trace line and the debug line
// of a forced algorithm that cannot run.
func TestTraceAndFallback(t *testing.T) {
	var out bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &out})
	c, err := open(t, log, "coll_tuned_allreduce_algorithm", "ring")
	if err != nil {
		t.Fatal(err)
	}
	w := colltest.NewWorld(3)
	mods := make([]*coll.Module, 3)
	for r := range mods {
		_, mods[r], _ = c.CommQuery(w.Comm(r), coll.Query{Priority: 30})
	}
	w.Run(t, func(cm coll.Comm) error {
		send, recv := make([]byte, 32), make([]byte, 32)
		return mods[cm.Rank()].Allreduce(cm, send, recv, colltest.Affine{})
	})
	s := out.String()
	for _, want := range []string{"falling back", "forced=ring", "algorithm=recursive_doubling", "collective=allreduce"} {
		if !strings.Contains(s, want) {
			t.Errorf("log lacks %q:\n%s", want, s)
		}
	}
}

// TestBadArguments checks that buffers that cannot be right are errors
// before any message moves (every rank passes the same, so none waits).
func TestBadArguments(t *testing.T) {
	m := newModule(testConfig(), hclog.NewNullLogger(), nil, false).collectives()
	sum := colltest.SumInt64{}
	for _, tc := range []struct {
		name string
		f    func(c coll.Comm) error
	}{
		{"bcast root", func(c coll.Comm) error { return m.Bcast(c, nil, 3) }},
		{"reduce partial element", func(c coll.Comm) error { return m.Reduce(c, make([]byte, 7), make([]byte, 7), sum, 0) }},
		{"allreduce lengths", func(c coll.Comm) error { return m.Allreduce(c, make([]byte, 8), make([]byte, 16), sum) }},
		{"allgather length", func(c coll.Comm) error { return m.Allgather(c, make([]byte, 8), make([]byte, 8)) }},
		{"alltoall length", func(c coll.Comm) error { return m.Alltoall(c, make([]byte, 9), make([]byte, 9)) }},
		{"gather length", func(c coll.Comm) error { return m.Gather(c, make([]byte, 8), make([]byte, 8), 0) }},
		{"scatter length", func(c coll.Comm) error { return m.Scatter(c, make([]byte, 8), make([]byte, 8), 0) }},
	} {
		w := colltest.NewWorld(2)
		err := tc.f(w.Comm(0))
		// The caller names the component, the collective and the
		// communicator: the component's error leaves them out.
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.name)
		case strings.Contains(err.Error(), "coll tuned") || strings.Contains(err.Error(), " on colltest"):
			t.Errorf("%s: error %q names the component or the call", tc.name, err)
		}
	}
}
