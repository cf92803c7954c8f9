package mca

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/params"
)

// Sentinel errors, usable with errors.Is.
var (
	// ErrDeclined is returned (wrapped, with the reason) by a component's
	// Open or Query when it does not want to run in this process. The
	// framework closes it silently.
	ErrDeclined = errors.New("component declined")
	// ErrUnknownComponent marks a name that no registered component has.
	ErrUnknownComponent = errors.New("unknown component")
	// ErrVersion marks a component built for another major version of the
	// component model or of its framework.
	ErrVersion = errors.New("incompatible component version")
	// ErrSelection marks a malformed framework selection list.
	ErrSelection = errors.New("bad component selection")
	// ErrComponentFailed marks a component's failure in a lifecycle step:
	// every ComponentError matches it. Its text never shows in a message;
	// the ComponentError says which component failed, and in what.
	ErrComponentFailed = errors.New("component failed")
	// ErrFatal marks an Open or Query error that stops the framework even
	// when the user did not ask for the component by name: the user's
	// configuration of it is wrong and running without it would hide that
	// (for example btl_tcp_if_include naming an interface the host lacks).
	// Mark an error with Fatal, which keeps this text out of the message.
	ErrFatal = errors.New("fatal component error")
)

// Fatal marks err as fatal (ErrFatal) without changing its message. A
// component returns its errors without its own name; the framework adds
// the component and the step.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return marked{err, ErrFatal}
}

// marked is err, matching sentinel with errors.Is but without its text:
// the message says what went wrong, the sentinel only classifies it.
type marked struct{ err, sentinel error }

func (e marked) Error() string        { return e.err.Error() }
func (e marked) Unwrap() error        { return e.err }
func (e marked) Is(target error) bool { return target == e.sentinel }

// BaseComponent is the part every component shares: its identity and the
// lifecycle hooks' defaults. Each framework's base component embeds it, and
// each component embeds its framework's base, the Go form of Open MPI's
// mca_base_component_t chain.
type BaseComponent struct {
	ModelVersion     Version // component model the component was built for
	FrameworkName    string
	FrameworkVersion Version // framework API the component was built for
	ComponentName    string
	ComponentVersion Version
	// DefaultPriority is the default of <framework>_<component>_priority.
	DefaultPriority int
}

// MCA returns the embedded base, so the framework can read the identity of
// any component.
func (b *BaseComponent) MCA() *BaseComponent { return b }

// RegisterParams registers nothing. It must have no side effects beyond
// registration: it also runs under gompi_info.
func (*BaseComponent) RegisterParams(*params.Registrar) error { return nil }

// Open does nothing.
func (*BaseComponent) Open(context.Context, *Env) error { return nil }

// Query accepts with the priority the user or the default set.
func (*BaseComponent) Query(_ context.Context, env *Env) (int, error) { return env.Priority, nil }

// Close does nothing.
func (*BaseComponent) Close() error { return nil }

// ParamChecker is implemented by a component whose parameters constrain
// each other, which no one parameter's Validate can judge. The framework
// calls it when the parameters are resolved, before Open, for each
// component its selection allows and its priority does not disable:
// gompirun thus refuses a bad combination before any rank starts. The check must not depend on the host, and its
// error names the parameters, their values and their sources.
type ParamChecker interface {
	CheckParams(s *params.Snapshot) error
}

// Component is what every framework's components implement, mostly through
// the embedded BaseComponent. The lifecycle is RegisterParams, Open, Query,
// Close; Close also runs after a failed or declined Open or Query.
type Component interface {
	MCA() *BaseComponent
	RegisterParams(r *params.Registrar) error
	Open(ctx context.Context, env *Env) error
	Query(ctx context.Context, env *Env) (priority int, err error)
	Close() error
}

// Env is what a component receives when it is opened and queried.
type Env struct {
	Params *params.Snapshot
	// Logger is named <framework>.<component>, at its framework's level.
	Logger hclog.Logger
	// Priority is the resolved <framework>_<component>_priority.
	Priority int
	// Requested is true when the user named the component in the framework's
	// include list: its failures are errors, not warnings.
	Requested bool
}

// Info is a component's identity and its constructor: what the registry,
// gompi_info and the plugin host know of a component without building it
// (Caddy's ModuleInfo). Framework packages fill in their part (btl.Info).
type Info struct {
	Framework        string
	Name             string
	Version          Version
	ModelVersion     Version // component model the component was built for
	FrameworkVersion Version // framework API the component was built for
	DefaultPriority  int     // default of <framework>_<component>_priority
	// Origin is "static" for a component linked into the program, or the
	// path of an out-of-process plugin's executable.
	Origin string
	// New returns a fresh, unopened component with no side effects. Its
	// embedded BaseComponent is filled in from Info by Instantiate.
	New func() Component
}

// NewInfo returns the identity of a component built against this
// component model and the given framework API version. Each framework
// wraps it (btl.Info), so that a component names only itself.
func NewInfo(framework string, frameworkVersion Version, name string, version Version, priority int, newComponent func() Component) Info {
	return Info{
		Framework:        framework,
		Name:             name,
		Version:          version,
		ModelVersion:     ModelVersion(),
		FrameworkVersion: frameworkVersion,
		DefaultPriority:  priority,
		New:              newComponent,
	}
}

// OriginStatic is the Origin of a component linked into the program.
const OriginStatic = "static"

// FullName is the component's full name, mca_<framework>_<component>.
func (i *Info) FullName() string { return FullName(i.Framework, i.Name) }

// Instantiate calls New and stamps the identity into the component's
// embedded base, so that the identity is written once, in Info.
func (i *Info) Instantiate() Component {
	c := i.New()
	*c.MCA() = BaseComponent{
		ModelVersion:     i.ModelVersion,
		FrameworkName:    i.Framework,
		FrameworkVersion: i.FrameworkVersion,
		ComponentName:    i.Name,
		ComponentVersion: i.Version,
		DefaultPriority:  i.DefaultPriority,
	}
	return c
}

// Implements returns a FrameworkSpec.Accepts check that a component
// implements T, the framework's component interface.
func Implements[T any]() func(Component) error {
	return func(c Component) error {
		if _, ok := c.(T); !ok {
			return fmt.Errorf("%T does not implement %s", c, reflect.TypeFor[T]())
		}
		return nil
	}
}
