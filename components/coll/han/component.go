package han

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info is the component's identity: above tuned (30), whose flat
// algorithms it builds on for what it leaves, and below sm (50), which
// serves the communicators of one node that han declines anyway.
var info = coll.Info("han", mca.Version{Major: 1}, 40, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the han coll component.
type Component struct {
	coll.BaseComponent

	params [len(collectives)]params.Param[string]
	cfg    config
	log    hclog.Logger
}

// RegisterParams registers coll_han_<collective>_algorithm for every
// collective han provides.
func (c *Component) RegisterParams(r *params.Registrar) error {
	for i, k := range collectives {
		c.params[i] = r.Enum(params.Spec{
			Name: k.name + "_algorithm", Default: modeAuto, Level: 5,
			Help: fmt.Sprintf("How han runs %s on a communicator that spans nodes: %s.", k.name, k.help),
			Values: []params.EnumValue{
				{Name: modeAuto, Help: "hierarchical wherever it can run, the next component otherwise; " +
					"the next component also when the user forced coll_tuned_" + k.name + "_algorithm or a decider's rules speak of " + k.name},
				{Name: modeHierarchical, Help: "hierarchical wherever it can run, whatever tuned's parameters and rules say"},
				{Name: modeNext, Help: "every call goes to the next component, tuned's flat algorithms"},
			},
		})
	}
	return nil
}

// Open reads the parameters.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	for i, k := range collectives {
		c.cfg.mode[i] = c.params[i].Get(env.Params)
		if v, ok := env.Params.Lookup("coll_tuned_" + k.name + "_algorithm"); ok {
			if alg, _ := v.Parsed.(string); alg != "" && alg != "auto" && alg != "0" {
				c.cfg.tunedForced[i] = true
			}
		}
	}
	return nil
}

// CommQuery offers a module for a communicator whose ranks span several
// nodes with more than one rank on at least one of them; it declines the
// others, where a hierarchy has nothing to save.
func (c *Component) CommQuery(comm coll.Comm, q coll.Query) (int, *coll.Module, error) {
	if q.OneNode || q.Nodes == nil {
		return 0, nil, nil
	}
	topo, ok := newTopology(q.Nodes, comm.Rank())
	if !ok || len(q.Nodes) != comm.Size() || len(topo.leaders) < 2 || len(topo.leaders) == comm.Size() {
		return 0, nil, nil
	}
	log := c.log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	m := &module{topo: topo, log: log}
	mod := m.collectives()
	n := comm.Size()
	for i, k := range collectives {
		switch mode := c.cfg.mode[i]; {
		case mode == modeNext:
			k.clear(mod)
		case mode == modeAuto && (c.cfg.tunedForced[i] || len(q.Rules.For(k.name, n)) > 0):
			k.clear(mod)
		}
	}
	return q.Priority, mod, nil
}

var _ coll.Component = (*Component)(nil)
