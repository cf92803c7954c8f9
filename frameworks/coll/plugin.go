package coll

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gompi/gompi/frameworks/coll/collpb"
	"github.com/gompi/gompi/mca"
)

// An out-of-process coll component (an executable mca_coll_<name> on
// mca_base_component_path) is a decider: it runs no collectives, it gives
// each communicator its rules over the Decider service (collpb), which the
// algorithm components follow. The collplugin package is its SDK.

// rulesTimeout bounds one Rules call: a hung plugin must not hang the
// creation of a communicator. It is generous because a loaded machine is
// slow, and failing is not free: the plugin is not asked again.
const rulesTimeout = 30 * time.Second

// pluginComponent is the host's side of a decider plugin. BaseComponent
// puts the MCA base one level deeper than the Plugin, whose lifecycle
// methods win.
type pluginComponent struct {
	BaseComponent
	*mca.Plugin
}

func newPluginComponent(p *mca.Plugin) mca.Component { return &pluginComponent{Plugin: p} }

// CommQuery offers no collectives: the plugin only decides.
func (*pluginComponent) CommQuery(Comm, Query) (int, *Module, error) { return 0, nil, nil }

// CommRules asks the plugin for c's rules and checks them. A plugin that
// failed once, by dying, erring or answering nonsense, is reported once
// (with its path and last stderr lines) and not asked again: every later
// communicator keeps the built-in decision.
func (p *pluginComponent) CommRules(c Comm) (*Rules, error) {
	if err := p.Dead(); err != nil {
		return nil, err
	}
	conn := p.Conn()
	if conn == nil {
		return nil, p.Fail("rules for "+c.Name(), errors.New("asked before open or after close"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), rulesTimeout)
	defer cancel()
	set, err := collpb.NewDeciderClient(conn).Rules(ctx, &collpb.CommInfo{Size: int32(c.Size()), Name: c.Name()})
	if err != nil {
		return nil, p.Fail("rules for "+c.Name(), err)
	}
	rules, err := rulesFromPB(set)
	if err != nil {
		return nil, p.Fail("rules for "+c.Name(), err)
	}
	return rules, nil
}

// rulesFromPB checks and converts a plugin's answer.
func rulesFromPB(set *collpb.RuleSet) (*Rules, error) {
	rules := make([]Rule, 0, len(set.GetRules()))
	for _, r := range set.GetRules() {
		rule := Rule{
			Collective: r.GetCollective(),
			Ranks:      Range{Min: r.GetMinRanks(), Max: -1},
			Bytes:      Range{Min: r.GetMinBytes(), Max: -1},
			Algorithm:  r.GetAlgorithm(),
			Segsize:    int(r.GetSegsize()),
		}
		if r.MaxRanks != nil {
			rule.Ranks.Max = r.GetMaxRanks()
			if rule.Ranks.Max < 0 {
				return nil, fmt.Errorf("%w: rule %d (%s): max_ranks %d is negative", ErrBadRules, len(rules)+1, rule.Collective, rule.Ranks.Max)
			}
		}
		if r.MaxBytes != nil {
			rule.Bytes.Max = r.GetMaxBytes()
			if rule.Bytes.Max < 0 {
				return nil, fmt.Errorf("%w: rule %d (%s): max_bytes %d is negative", ErrBadRules, len(rules)+1, rule.Collective, rule.Bytes.Max)
			}
		}
		if r.GetSegsize() > 1<<40 {
			return nil, fmt.Errorf("%w: rule %d (%s): segment size %d is too large", ErrBadRules, len(rules)+1, rule.Collective, r.GetSegsize())
		}
		rules = append(rules, rule)
	}
	return NewRules(rules)
}

// RulesToPB converts rules to the wire, for the plugin side.
func RulesToPB(t *Rules) *collpb.RuleSet {
	set := &collpb.RuleSet{}
	for _, r := range t.All() {
		pr := &collpb.Rule{
			Collective: r.Collective, MinRanks: r.Ranks.Min, MinBytes: r.Bytes.Min,
			Algorithm: r.Algorithm, Segsize: int64(r.Segsize),
		}
		if r.Ranks.Max >= 0 {
			pr.MaxRanks = &r.Ranks.Max
		}
		if r.Bytes.Max >= 0 {
			pr.MaxBytes = &r.Bytes.Max
		}
		set.Rules = append(set.Rules, pr)
	}
	return set
}

var (
	_ Component = (*pluginComponent)(nil)
	_ Decider   = (*pluginComponent)(nil)
)
