package tuned

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
)

// module runs one communicator's collectives with a fixed configuration.
type module struct {
	cfg config
	log hclog.Logger
	// oversubscribed is the host's: all the decision needs of it, so that
	// communicators without rules share a module.
	oversubscribed bool
	pool           scratch
	// rules are the communicator's rules by collective, nil without any.
	rules map[string][]ruled
}

func newModule(cfg config, log hclog.Logger, rules map[string][]ruled, oversubscribed bool) *module {
	return &module{cfg: cfg, log: log, rules: rules, oversubscribed: oversubscribed}
}

// collectives is the framework's view of the module: the collectives tuned
// provides, nil for the others.
func (m *module) collectives() *coll.Module {
	return &coll.Module{
		Concurrent: true, // point-to-point only, scratch from a sync.Pool: non-blocking calls may run it
		Barrier:    m.barrier,
		Bcast:      m.bcast,
		Reduce:     m.reduce,
		Allreduce:  m.allreduce,
		Gather:     m.gather,
		Scatter:    m.scatter,
		Allgather:  m.allgather,
		Alltoall:   m.alltoall,
	}
}

// trace logs the algorithm of one call and where the choice came from,
// at no cost unless tracing.
func (m *module) trace(c coll.Comm, k collective, ch choice, bytes int) {
	if m.log.IsTrace() {
		m.log.Trace("collective", "collective", k.name, "algorithm", k.algName(ch.alg), "decision", ch.from,
			"bytes", bytes, "comm", c.Name(), "size", c.Size())
	}
}

// fallback logs that the algorithm a parameter or a rule asked for (named
// wanted) cannot run here, and returns the built-in choice alg.
func (m *module) fallback(c coll.Comm, k collective, asked choice, wanted string, alg int, why string) choice {
	if m.log.IsDebug() {
		m.log.Debug("the "+asked.from+" algorithm cannot run; falling back to the built-in decision", "collective", k.name,
			asked.from, wanted, "algorithm", k.algName(alg), "reason", why, "comm", c.Name())
	}
	return choice{alg: alg, from: fromBuiltin}
}

// wrap names the algorithm that returned err, what only tuned knows; the
// caller names the component, the collective and the communicator. An
// argument error found before an algorithm was chosen (alg auto) is
// returned as it is.
func wrap(k collective, alg int, err error) error {
	if err == nil || alg == auto {
		return err
	}
	return fmt.Errorf("%s algorithm: %w", k.algName(alg), err)
}

func checkRoot(c coll.Comm, root int) error { return coll.CheckRoot(c, root) }
