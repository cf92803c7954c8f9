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
	return q.Priority, newModule(c.cfg, log, rules, q.Host).collectives(), nil
}

var _ coll.Component = (*Component)(nil)
