package ess_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// fake is an ess component that accepts or declines as told.
type fake struct {
	ess.BaseComponent
	name   string
	accept bool
	fatal  error
}

func (f *fake) Query(_ context.Context, env *mca.Env) (int, error) {
	switch {
	case f.fatal != nil:
		return 0, mca.Fatal(f.fatal)
	case !f.accept:
		return 0, ess.ErrNotLaunched
	}
	return env.Priority, nil
}

func (f *fake) Connect(context.Context) (ess.Runtime, error) { return runtime{f.name}, nil }

// runtime names the component that made it.
type runtime struct{ by string }

func (r runtime) Job() ess.Job                                   { return ess.Job{JobID: r.by} }
func (runtime) Put(context.Context, string, []byte) error        { return nil }
func (runtime) Fence(context.Context) error                      { return nil }
func (runtime) Get(context.Context, int, string) ([]byte, error) { return nil, nil }
func (runtime) Abort(context.Context, int, string, []int) error  { return nil }
func (runtime) Finalize(context.Context) error                   { return nil }
func (runtime) Close() error                                     { return nil }

// join loads a system of the given components and joins through it, with
// the parameter settings given as name, value pairs.
func join(t *testing.T, comps []*fake, prios []int, settings ...string) (ess.Runtime, error) {
	t.Helper()
	reg := mca.NewRegistry()
	reg.RegisterFramework(mca.FrameworkSpec{Name: ess.Name, Version: ess.APIVersion(), Accepts: mca.Implements[ess.Component]()})
	for i, c := range comps {
		reg.Register(ess.Info(c.name, mca.Version{Major: 1}, prios[i], func() mca.Component { return c }))
	}
	var in params.Inputs
	for i := 0; i+1 < len(settings); i += 2 {
		in.CommandLine = append(in.CommandLine, params.Setting{Name: settings[i], Value: settings[i+1]})
	}
	sys, err := mca.Load(mca.Options{Registry: reg, Logger: hclog.NewNullLogger()}, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	fw, err := sys.Framework(ess.Name)
	if err != nil {
		t.Fatal(err)
	}
	return ess.Join(context.Background(), fw)
}

func TestJoinTakesTheHighestThatAccepts(t *testing.T) {
	comps := []*fake{{name: "a"}, {name: "b", accept: true}, {name: "c", accept: true}}
	rt, err := join(t, comps, []int{100, 50, 0})
	if err != nil || rt.Job().JobID != "b" {
		t.Fatalf("Join = %v, %v; want b's runtime", rt, err)
	}
	rt, err = join(t, []*fake{{name: "a"}, {name: "b", accept: true}, {name: "c", accept: true}}, []int{100, 50, 0}, "ess", "c")
	if err != nil || rt.Job().JobID != "c" {
		t.Fatalf("Join with --mca ess c = %v, %v; want c's runtime", rt, err)
	}
}

// A component that recognises its launcher but finds its variables
// inconsistent stops Join, though another component would accept.
func TestJoinStopsOnABrokenLaunch(t *testing.T) {
	broken := errors.New("PMI_RANK=9 is not below PMI_SIZE=4")
	_, err := join(t, []*fake{{name: "a", fatal: broken}, {name: "c", accept: true}}, []int{100, 0})
	if !errors.Is(err, broken) {
		t.Fatalf("Join = %v, want the broken launch's error", err)
	}
}

func TestJoinWithoutComponents(t *testing.T) {
	_, err := join(t, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/gompi/gompi/components/all"`) {
		t.Fatalf("Join = %v, want it to say what to import", err)
	}
	_, err = join(t, []*fake{{name: "a"}}, []int{10})
	if err == nil || !strings.Contains(err.Error(), "no component recognises how this process was started (components: a)") {
		t.Fatalf("Join = %v, want it to say that nothing recognised the launch", err)
	}
}

func TestLaunchRank(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want int
	}{
		{nil, 0},
		{map[string]string{"GOMPI_COMM_WORLD_RANK": "3"}, 3},
		{map[string]string{"PMI_RANK": "5", "SLURM_PROCID": "5"}, 5},
		{map[string]string{"SLURM_PROCID": "2"}, 2},
		{map[string]string{"PMI_RANK": "x"}, 0},
	} {
		if got := ess.LaunchRank(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("LaunchRank(%v) = %d, want %d", tc.env, got, tc.want)
		}
	}
}

func TestLaunchSize(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want int
	}{
		{nil, 1},
		{map[string]string{"GOMPI_COMM_WORLD_RANK": "3", "GOMPI_COMM_WORLD_SIZE": "4", "SLURM_PROCID": "0", "SLURM_NTASKS": "9"}, 4},
		{map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, 2},
		{map[string]string{"PMIX_RANK": "0", "SLURM_PROCID": "0", "SLURM_NTASKS": "6"}, 6},
		{map[string]string{"PMIX_RANK": "0"}, 0},
		{map[string]string{"SLURM_NTASKS": "6"}, 1}, // an allocation's shell, no task of it
		{map[string]string{"PMI_RANK": "0", "PMI_SIZE": "x"}, 0},
	} {
		if got := ess.LaunchSize(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("LaunchSize(%v) = %d, want %d", tc.env, got, tc.want)
		}
	}
}
