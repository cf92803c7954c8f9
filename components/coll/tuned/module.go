package tuned

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
)

// module runs one communicator's collectives with a fixed configuration.
type module struct {
	cfg  config
	log  hclog.Logger
	pool scratch
}

func newModule(cfg config, log hclog.Logger) *module {
	return &module{cfg: cfg, log: log}
}

// collectives is the framework's view of the module: the collectives tuned
// provides, nil for the others.
func (m *module) collectives() *coll.Module {
	return &coll.Module{
		Barrier:   m.barrier,
		Bcast:     m.bcast,
		Reduce:    m.reduce,
		Allreduce: m.allreduce,
		Gather:    m.gather,
		Scatter:   m.scatter,
		Allgather: m.allgather,
		Alltoall:  m.alltoall,
	}
}

// trace logs the algorithm of one call, at no cost unless tracing.
func (m *module) trace(c coll.Comm, k collective, alg, bytes int) {
	if m.log.IsTrace() {
		m.log.Trace("collective", "collective", k.name, "algorithm", k.algName(alg),
			"bytes", bytes, "comm", c.Name(), "size", c.Size())
	}
}

// fallback logs a forced algorithm that cannot run here.
func (m *module) fallback(c coll.Comm, k collective, forced, alg int, why string) {
	if m.log.IsDebug() {
		m.log.Debug("forced algorithm cannot run; falling back", "collective", k.name,
			"forced", k.algName(forced), "algorithm", k.algName(alg), "reason", why, "comm", c.Name())
	}
}

func wrap(k collective, alg int, c coll.Comm, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("coll tuned: %s %s on %s: %w", k.name, k.algName(alg), c.Name(), err)
}

func checkRoot(c coll.Comm, root int) error { return coll.CheckRoot(c, root) }
