// Package stats is the prof component of an mpiP-style summary: per rank
// its application time, MPI time and MPI %, per MPI function and per call
// site in the user's code the calls, time and bytes, with their spread
// across ranks, per communicator (by name) the calls, time and bytes,
// and the sender-by-receiver matrices of messages and bytes,
// point-to-point and collective apart. At Finalize each rank
// submits its part, and gompirun merges the parts into one report, as
// text, JSON and an SVG heatmap, when the job ends (a program started
// alone writes its own). docs/prof-stats.md describes it.
//
// Run it with gompirun --mca prof stats, or GOMPI_MCA_prof=stats.
package stats

import (
	"context"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// Component is the stats prof component.
type Component struct {
	prof.BaseComponent

	params paramSet
	cfg    config
}

// info is the component's identity.
var info = prof.Info("stats", mca.Version{Major: 1}, 50, func() mca.Component { return &Component{} })

func init() {
	mca.Register(info)
	prof.RegisterMerger(toolName, merge)
}

// RegisterParams registers the prof_stats_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.params = register(r)
	return nil
}

// Open reads the parameters.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.cfg = c.params.resolve(env.Params)
	return nil
}

// Wrap returns the stats layer over next. Its clock starts here.
func (c *Component) Wrap(next pmpi.API) (pmpi.API, error) {
	return newModule(next, c.cfg), nil
}

var _ prof.Component = (*Component)(nil)
