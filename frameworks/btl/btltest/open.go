package btltest

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// Open runs a btl component's register-params and open hooks the way the
// MCA core does: its parameters go into a fresh registry under
// btl_<component>_*, resolved with settings given as name, value pairs as on
// the command line, and checked together where the component is an
// mca.ParamChecker. A registration or resolution error fails the test; the
// check's or Open's error is returned, so that tests can check refusals.
func Open(t testing.TB, c btl.Component, log hclog.Logger, settings ...string) error {
	t.Helper()
	id := c.MCA()
	reg := params.NewRegistry()
	r := reg.Scope(btl.Name, id.ComponentName)
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
		t.Fatal(err)
	}
	if pc, ok := c.(mca.ParamChecker); ok {
		if err := pc.CheckParams(snap); err != nil {
			return err // as the framework would refuse it, before Open
		}
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return c.Open(context.Background(), &mca.Env{Params: snap, Logger: log, Priority: id.DefaultPriority})
}

// PerRank is a Factory that opens a fresh component for each rank with
// open and takes the one module its Init returns.
func PerRank(open func(t testing.TB, env btl.InitEnv) btl.Component) Factory {
	return func(t *testing.T, envs []btl.InitEnv) []btl.Module {
		mods := make([]btl.Module, len(envs))
		for rank, env := range envs {
			ms, err := open(t, env).Init(context.Background(), env)
			if err != nil || len(ms) != 1 {
				t.Fatalf("rank %d: Init = %d modules, %v; want 1", rank, len(ms), err)
			}
			mods[rank] = ms[0]
		}
		return mods
	}
}
