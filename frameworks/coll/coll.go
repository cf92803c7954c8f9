// Package coll is the collective operations framework. Its components are
// queried for every communicator; for each collective the module of the
// highest-priority component that provides it runs, built on the
// point-to-point engine.
package coll

import "github.com/gompi/gompi/mca"

// Name is the framework's name, and the name of its selection parameter.
const Name = "coll"

// APIVersion is the version of the coll component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "collective operations, chosen per communicator",
		Accepts:     mca.Implements[Component](),
	})
}

// BaseComponent is the coll framework's base component. Every coll component
// embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

// NewBaseComponent fills in the identity of a coll component built against
// this version of the framework.
func NewBaseComponent(name string, version mca.Version, priority int) BaseComponent {
	return BaseComponent{mca.NewBase(Name, APIVersion(), name, version, priority)}
}

// Component is what a coll component implements.
type Component interface {
	mca.Component
	collBase() *BaseComponent
}

func (b *BaseComponent) collBase() *BaseComponent { return b }
