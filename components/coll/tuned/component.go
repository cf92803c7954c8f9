package tuned

import (
	"context"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info is the component's identity; tests build it with info.Instantiate.
var info = coll.Info("tuned", mca.Version{Major: 1}, 30, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the tuned coll component.
type Component struct {
	coll.BaseComponent

	params paramSet
	cfg    config
	log    hclog.Logger
	warned sync.Map // the rules' unknown algorithms warned of
	// plain are the modules of the communicators without rules, by
	// whether the host is oversubscribed: a module keeps nothing of its
	// communicator's, so Dup and Split make none.
	plain [2]*coll.Module
}

// RegisterParams registers the coll_tuned_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.params = register(r)
	return nil
}

// Open reads the parameters.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	cfg, err := c.params.resolve(env.Params)
	if err != nil {
		return mca.Fatal(err)
	}
	c.cfg = cfg
	for i := range c.plain {
		c.plain[i] = newModule(c.cfg, c.log, nil, i == 1).collectives()
	}
	return nil
}

// CommQuery offers a module for every communicator, at the component's
// priority, deciding by the communicator's rules where they speak.
func (c *Component) CommQuery(comm coll.Comm, q coll.Query) (int, *coll.Module, error) {
	log := c.log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	rules := resolveRules(q.Rules, comm.Size(), comm.Name(), log, &c.warned)
	if rules == nil && c.plain[0] != nil {
		return q.Priority, c.plain[b2i(q.Host.Oversubscribed)], nil
	}
	return q.Priority, newModule(c.cfg, log, rules, q.Host.Oversubscribed).collectives(), nil
}

var _ coll.Component = (*Component)(nil)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
