package han

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// open registers and opens a han component the way the MCA core does,
// beside a tuned bcast parameter, with settings as name, value pairs from
// the command line.
func open(t *testing.T, settings ...string) (*Component, error) {
	t.Helper()
	c := info.Instantiate().(*Component)
	reg := params.NewRegistry()
	r := reg.Scope(coll.Name, "han")
	if err := c.RegisterParams(r); err != nil {
		t.Fatal(err)
	}
	tuned := reg.Scope(coll.Name, "tuned")
	tuned.String(params.Spec{Name: "bcast_algorithm", Default: "auto", Level: 5, Help: "tuned's bcast algorithm"})
	for _, s := range []*params.Registrar{r, tuned} {
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
	}
	var in params.Inputs
	for i := 0; i+1 < len(settings); i += 2 {
		in.CommandLine = append(in.CommandLine, params.Setting{Name: settings[i], Value: settings[i+1]})
	}
	snap, err := reg.Resolve(in)
	if err != nil {
		return nil, err
	}
	return c, c.Open(context.Background(), &mca.Env{Params: snap, Logger: hclog.NewNullLogger(), Priority: 40})
}

func TestParams(t *testing.T) {
	c, err := open(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg != autoConfig() {
		t.Errorf("default config %+v, want every collective auto", c.cfg)
	}
	c, err = open(t, "coll_han_bcast_algorithm", "next", "coll_han_reduce_algorithm", "hierarchical",
		"coll_tuned_bcast_algorithm", "binomial")
	if err != nil {
		t.Fatal(err)
	}
	want := autoConfig()
	want.mode[1], want.mode[2] = modeNext, modeHierarchical
	want.tunedForced[1] = true
	if c.cfg != want {
		t.Errorf("config %+v, want %+v", c.cfg, want)
	}
	if collectives[1].name != "bcast" || collectives[2].name != "reduce" {
		t.Fatalf("collectives out of order: %v, %v", collectives[1].name, collectives[2].name)
	}
}

func TestParamsBadValue(t *testing.T) {
	_, err := open(t, "coll_han_allreduce_algorithm", "flat")
	if err == nil {
		t.Fatal("a bad value was accepted")
	}
	for _, want := range []string{"coll_han_allreduce_algorithm", "flat", "auto", "hierarchical", "next"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
