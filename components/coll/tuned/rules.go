package tuned

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
)

// Where a call's algorithm came from, as the trace says.
const (
	fromForced  = "forced"   // coll_tuned_<collective>_algorithm
	fromRules   = "rules"    // the communicator's rules (coll.Query.Rules)
	fromBuiltin = "built-in" // decision.go
)

// choice is the algorithm of one call and where it came from.
type choice struct {
	alg  int
	from string
	// segsize is the rule's segment size; 0 keeps the parameter's.
	segsize int
}

// unknownAlg marks a rule that names no algorithm of its collective.
const unknownAlg = -1

// ruled is one of a communicator's rules resolved to tuned's algorithm.
type ruled struct {
	bytes   coll.Range
	alg     int // auto: the rule asks for the built-in decision
	name    string
	segsize int
}

// tunedCollectives are the collectives with an algorithm parameter.
var tunedCollectives = []collective{
	barrierAlgs, bcastAlgs, reduceAlgs, allreduceAlgs, allgatherAlgs, alltoallAlgs, gatherAlgs, scatterAlgs,
}

// resolveRules selects, per collective, the rules that apply to a
// communicator of n ranks, so that a call only matches its message size.
// The size is the same on every member, so all resolve alike.
// A rule that names no algorithm is a mistake in the rules, warned of
// once per process and rule (warned), at debug level after that.
func resolveRules(rules *coll.Rules, n int, comm string, log hclog.Logger, warned *sync.Map) map[string][]ruled {
	if rules.Len() == 0 {
		return nil
	}
	out := map[string][]ruled{}
	for _, k := range tunedCollectives {
		for _, r := range rules.For(k.name, n) {
			alg, err := k.parse(r.Algorithm)
			if err != nil {
				alg = unknownAlg
				say := log.Debug
				if _, seen := warned.LoadOrStore(k.name+" "+r.Algorithm, true); !seen {
					say = log.Warn
				}
				say("a rule names no algorithm of tuned; the built-in decision serves its sizes",
					"comm", comm, "collective", k.name, "bytes", r.Bytes.String(), "error", err)
			}
			out[k.name] = append(out[k.name], ruled{bytes: r.Bytes, alg: alg, name: r.Algorithm, segsize: r.Segsize})
		}
	}
	return out
}

// choose picks the algorithm of a call of k on a message of bytes: the
// forced one if the parameter is not auto, else that of the first rule
// that matches, else builtin, the built-in decision.
func (m *module) choose(c coll.Comm, k collective, forced, bytes, builtin int) choice {
	if forced != auto {
		return choice{alg: forced, from: fromForced}
	}
	for _, r := range m.rules[k.name] {
		if !r.bytes.Contains(int64(bytes)) {
			continue
		}
		switch r.alg {
		case auto:
			return choice{alg: builtin, from: fromBuiltin}
		case unknownAlg:
			return m.fallback(c, k, choice{alg: unknownAlg, from: fromRules}, r.name, builtin, "tuned has no such algorithm")
		}
		return choice{alg: r.alg, from: fromRules, segsize: r.segsize}
	}
	return choice{alg: builtin, from: fromBuiltin}
}

// segsize is the segment size a call runs with: the rule's, or def.
func (ch choice) segsizeOr(def int) int {
	if ch.segsize > 0 {
		return ch.segsize
	}
	return def
}

// CheckRule reports whether tuned has algorithm for collective, as a
// rules file names them: a decision component checks its rules with it
// so that a misspelt name is an error where the rule is written.
func CheckRule(collective, algorithm string) error {
	var names []string
	for _, k := range tunedCollectives {
		if k.name == collective {
			_, err := k.parse(algorithm)
			return err
		}
		names = append(names, k.name)
	}
	return fmt.Errorf("coll tuned has no algorithms for %s (it has them for %s)", collective, strings.Join(names, ", "))
}
