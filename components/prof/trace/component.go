// Package trace is the prof component that records every MPI call as a
// Chrome trace event, so that a whole job can be opened in Perfetto
// (ui.perfetto.dev) or chrome://tracing: one process per rank, one thread
// per goroutine, one slice per call, and an arrow from each send to the
// receive that got its message. Run a program under it with
//
//	gompirun --mca prof trace ...
//
// At Finalize every rank submits its events, and gompirun merges them into
// one file when the job ends (a program started alone writes its own). The
// format and the meaning of the events are in docs/prof-trace.md.
package trace

//go:generate go run ./internal/tracegen

import (
	"context"
	"errors"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// Component is the trace prof component.
type Component struct {
	prof.BaseComponent
	params paramSet
	cfg    config
}

// info is the component's identity.
var info = prof.Info("trace", mca.Version{Major: 1}, 10, func() mca.Component { return &Component{} })

func init() {
	mca.Register(info)
	prof.RegisterMerger(toolName, mergeParts)
}

// RegisterParams registers the prof_trace_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.params = register(r)
	return nil
}

// Open reads the parameters.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.cfg = c.params.resolve(env.Params)
	return nil
}

// Wrap returns a tracer over next.
func (c *Component) Wrap(next pmpi.API) (pmpi.API, error) {
	if next == nil {
		return nil, errors.New("no layer below")
	}
	return newTracer(next, c.cfg), nil
}

var _ prof.Component = (*Component)(nil)
