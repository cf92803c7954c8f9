// Command mca_coll_rules is an out-of-process coll decision component: it
// reads a rules file, named by coll_rules_file, and tells every
// communicator which coll tuned algorithm serves each collective at each
// size. Put it on mca_base_component_path:
//
//	gompirun --mca mca_base_component_path bin/plugins --mca coll_rules_file my.rules -np 4 ./app
//
// The file's format is in rulesfile.go. Collectives and sizes the file does
// not cover keep tuned's built-in decision, and so does every communicator
// if the plugin dies.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/collplugin"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

type rulesComponent struct {
	collplugin.Base
	file  params.Param[string]
	rules *coll.Rules
	log   hclog.Logger
}

func (c *rulesComponent) RegisterParams(r *params.Registrar) error {
	c.file = r.String(params.Spec{Name: "file", Default: "", Level: 5,
		Help: "Rules file: one rule per line, 'collective ranks bytes algorithm [segsize]' (ranges N, N-M, N- or *; " +
			"sizes with k, m or g; algorithms are coll tuned's), the first match winning; '#' starts a comment. " +
			"Empty: the component declines."})
	return nil
}

// Open reads the rules file once for the process.
func (c *rulesComponent) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	name := c.file.Get(env.Params)
	if name == "" {
		return fmt.Errorf("%w: no rules file (coll_rules_file)", mca.ErrDeclined)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if c.rules, err = parseRules(f, name); err != nil {
		return err
	}
	c.log.Debug("rules read", "file", name, "rules", c.rules.Len())
	return nil
}

// Rules serves the rules that apply to the communicator's size.
func (c *rulesComponent) Rules(_ context.Context, in collplugin.CommInfo) (*coll.Rules, error) {
	if c.rules == nil {
		return nil, errors.New("rules asked before open")
	}
	var mine []coll.Rule
	for _, r := range c.rules.All() {
		if r.Ranks.Contains(int64(in.Size)) {
			mine = append(mine, r)
		}
	}
	c.log.Debug("rules asked", "comm", in.Name, "size", in.Size, "rules", len(mine))
	return coll.NewRules(mine)
}

func main() {
	collplugin.Serve(collplugin.Info("rules", mca.Version{Major: 1}, 90,
		func() collplugin.Decider { return &rulesComponent{} }))
}
