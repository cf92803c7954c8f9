// Package prof is the profiling framework: its components interpose on the
// PMPI layer, each wrapping the next, the way PMPI tools wrap a C MPI
// library.
package prof

import "github.com/gompi/gompi/mca"

// Name is the framework's name, and the name of its selection parameter.
const Name = "prof"

// APIVersion is the version of the prof component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "profiling tools that interpose on the PMPI layer",
		Accepts:     mca.Implements[Component](),
	})
}

// BaseComponent is the prof framework's base component. Every prof component
// embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

// NewBaseComponent fills in the identity of a prof component built against
// this version of the framework.
func NewBaseComponent(name string, version mca.Version, priority int) BaseComponent {
	return BaseComponent{mca.NewBase(Name, APIVersion(), name, version, priority)}
}

// Component is what a prof component implements.
type Component interface {
	mca.Component
	profBase() *BaseComponent
}

func (b *BaseComponent) profBase() *BaseComponent { return b }

// Function describes one call of pmpi.API, for tools that generate code
// from the API, such as gompi-wrappergen. Functions (generated) lists them.
type Function struct {
	Name    string
	Params  []Param
	Results []string // types, as written outside package pmpi (pmpi.Status)
}

// Param is one named argument of a Function.
type Param struct {
	Name, Type string
}
