// Package prof is the profiling framework: its components interpose on the
// PMPI layer, each wrapping the next, the way PMPI tools wrap a C MPI
// library (and as a CoreDNS plugin wraps the next handler).
//
// A component's Wrap returns a pmpi.API whose calls do the tool's work and
// call the layer below. A module embeds Base, which passes every call
// down, and overrides the calls it measures. The prof selection parameter
// names the tools and their order: "--mca prof stats,trace" puts stats
// outermost, so its before-code runs first and its after-code last, as
// MPICH's wrappergen nests its wrappers. Without the parameter no tool
// runs, whatever is linked in.
package prof

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/pmpi"
)

// Name is the framework's name, and the name of its selection parameter.
const Name = "prof"

// APIVersion is the version of the prof component interface.
// It is kept in profpb, which out-of-process tools import without pmpi.
func APIVersion() mca.Version {
	return mca.Version{Major: profpb.APIMajor, Minor: profpb.APIMinor, Patch: profpb.APIPatch}
}

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "profiling tools that interpose on the PMPI layer",
		Accepts:     mca.Implements[Component](),
		OptIn:       true,
		PriorityRole: "it orders the stack of tools that an exclusion (prof ^name) selects, highest " +
			"outermost; a list of names sets the order itself",
		Plugin: newPluginComponent,
	})
}

// BaseComponent is the prof framework's base component. Every prof component
// embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

// Info is the identity of a prof component built against this version of
// the framework, with its constructor; pass it to mca.Register.
func Info(name string, version mca.Version, priority int, newComponent func() mca.Component) mca.Info {
	return mca.NewInfo(Name, APIVersion(), name, version, priority, newComponent)
}

// Component is what a prof component implements.
type Component interface {
	mca.Component
	// Wrap returns the tool's layer over next, the layers below it down to
	// pmpi's real calls. It is called once, at Init, before Init itself
	// passes through the stack.
	Wrap(next pmpi.API) (pmpi.API, error)
	profBase() *BaseComponent
}

// Stack is the profiling stack built for a process.
type Stack struct {
	API   pmpi.API // the outermost layer: what package mpi calls
	Names []string // the tools, outermost first; empty when none runs
}

// Build opens and selects the prof components of fw and stacks them over
// bottom (pmpi's real API): in the order the selection parameter names
// them, else (with an exclude list) by priority. With no tool selected,
// bottom is the stack, and calls cost nothing more than without the
// framework.
func Build(ctx context.Context, fw *mca.Framework, bottom pmpi.API) (Stack, error) {
	if err := fw.Open(ctx); err != nil {
		return Stack{}, err
	}
	sel, err := fw.Select(ctx)
	if err != nil {
		return Stack{}, err
	}
	order := fw.Selection()
	slices.SortStableFunc(sel, func(a, b mca.Selected) int {
		if !order.Exclude {
			return slices.Index(order.Names, a.Name) - slices.Index(order.Names, b.Name)
		}
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		return strings.Compare(a.Name, b.Name)
	})
	st := Stack{API: bottom}
	for i := len(sel) - 1; i >= 0; i-- {
		s := sel[i]
		layer, err := s.Component.(Component).Wrap(st.API)
		if err != nil {
			return Stack{}, errors.Join(fmt.Errorf("prof %s: wrap: %w", s.Name, err), fw.Close())
		}
		if layer == nil {
			return Stack{}, errors.Join(fmt.Errorf("prof %s: wrap returned no layer", s.Name), fw.Close())
		}
		st.API = layer
		st.Names = append([]string{s.Name}, st.Names...)
	}
	if len(st.Names) > 0 {
		fw.Logger().Debug("profiling stack built", "outermost first", strings.Join(st.Names, ","))
	}
	return st, nil
}

//lint:ignore U1000 never called: it makes embedding BaseComponent the only way to implement Component
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
