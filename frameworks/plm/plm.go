// Package plm is the framework through which gompirun starts its daemon on
// the other hosts of a job (Open MPI's process lifecycle management): a
// component knows one way of running a command on a host, such as a
// remote shell agent (ssh) or a resource manager's launcher. gompirun
// starts the ranks of its own host itself; Select picks the component
// for the others, the accepting one of highest priority.
package plm

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gompi/gompi/mca"
)

// Name is the framework's name, and the name of its selection parameter.
const Name = "plm"

// APIVersion is the version of the plm component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "how gompirun starts its daemon on the other hosts of a job: a remote shell agent, or a resource manager",
		Accepts:     mca.Implements[Component](),
	})
}

// BaseComponent is the plm framework's base component. Every plm
// component embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

//lint:ignore U1000 never called: it makes embedding BaseComponent the only way to implement Component
func (b *BaseComponent) plmBase() *BaseComponent { return b }

// Info is the identity of a plm component built against this version of
// the framework, with its constructor; pass it to mca.Register.
func Info(name string, version mca.Version, priority int, newComponent func() mca.Component) mca.Info {
	return mca.NewInfo(Name, APIVersion(), name, version, priority, newComponent)
}

// Component is a plm component. Its Query declines where its way of
// launching is not available (no agent program, not inside an
// allocation).
type Component interface {
	mca.Component
	plmBase() *BaseComponent
	// Command returns the command that runs argv on host and carries its
	// standard input, output and error, as ssh does; its exit status is
	// the remote command's, or the agent's own failure.
	Command(host string, argv []string) (*exec.Cmd, error)
}

// Select opens fw, the plm framework of a loaded system, and returns the
// accepting component of highest priority, with its name.
func Select(ctx context.Context, fw *mca.Framework) (Component, string, error) {
	if err := fw.Open(ctx); err != nil {
		return nil, "", err
	}
	sel, err := fw.Select(ctx)
	if err != nil {
		return nil, "", err
	}
	if len(sel) == 0 {
		var names []string
		for _, c := range fw.Components() {
			names = append(names, c.Name)
		}
		return nil, "", fmt.Errorf("%s: no component can start processes on other hosts here (components: %s; "+
			"gompirun --mca plm_base_verbose debug says why each declined)", Name, strings.Join(names, ", "))
	}
	return sel[0].Component.(Component), sel[0].Name, nil
}
