// Package singleton is the ess component of a process that no launcher
// started: rank 0 of a job of one, with its exchange kept in memory, as
// MPI lets a program run on its own.
package singleton

import (
	"context"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/mca"
)

// info: the last resort, below every launcher's component.
var info = ess.Info("singleton", mca.Version{Major: 1}, 0, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the singleton ess component. It accepts every process; the
// launchers' components rank above it.
type Component struct {
	ess.BaseComponent
}

// Connect makes the singleton's runtime.
func (c *Component) Connect(ctx context.Context) (ess.Runtime, error) {
	return rte.Singleton(ctx)
}
