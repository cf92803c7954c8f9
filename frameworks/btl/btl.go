package btl

import "github.com/gompi/gompi/mca"

// Name is the framework's name, and the name of its selection parameter.
const Name = "btl"

// APIVersion is the version of the btl component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "byte transfer layer: moves bytes between a pair of ranks",
		Accepts:     mca.Implements[Component](),
		PriorityRole: "it orders the selected components; a peer's traffic goes by the reachable one with " +
			"the highest exclusivity (btl_*_exclusivity)",
	})
}

// BaseComponent is the btl framework's base component. Every btl component
// embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

// Info is the identity of a btl component built against this version of
// the framework, with its constructor; pass it to mca.Register.
func Info(name string, version mca.Version, priority int, newComponent func() mca.Component) mca.Info {
	return mca.NewInfo(Name, APIVersion(), name, version, priority, newComponent)
}

// mcaComponent is the lifecycle part of Component, provided by embedding
// BaseComponent.
type mcaComponent interface {
	mca.Component
	btlBase() *BaseComponent
}

func (b *BaseComponent) btlBase() *BaseComponent { return b }
