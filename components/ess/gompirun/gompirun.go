// Package gompirun is the ess component of the processes that gompirun
// starts: their identity comes from its GOMPI_* variables, and the
// exchange, the state report and the list of reports from its job server.
package gompirun

import (
	"context"
	"os"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/mca"
)

// info: above every component that a launcher's own variables select,
// since gompirun's are set only by gompirun.
var info = ess.Info("gompirun", mca.Version{Major: 1}, 100, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the gompirun ess component.
type Component struct {
	ess.BaseComponent
}

// Query accepts where gompirun's variables are set. Variables that are
// set but inconsistent stop Init: they mean a broken launch.
func (c *Component) Query(_ context.Context, env *mca.Env) (int, error) {
	launched, err := rte.Launched(os.Getenv)
	switch {
	case err != nil:
		return 0, mca.Fatal(err)
	case !launched:
		return 0, ess.ErrNotLaunched
	}
	return env.Priority, nil
}

// Connect joins gompirun's job server.
func (c *Component) Connect(ctx context.Context) (ess.Runtime, error) {
	return rte.Connect(ctx)
}
