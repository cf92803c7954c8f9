package params

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Registrar registers the parameters of one framework or component.
// Its methods never fail: they remember errors for Err and always return a
// handle, so a register-params hook can declare everything and check once.
type Registrar struct {
	reg       *Registry
	framework string
	component string

	mu   sync.Mutex
	errs []error
}

// Scope returns a Registrar that registers <framework>_<component>_<name> parameters.
func (r *Registry) Scope(framework, component string) *Registrar {
	return &Registrar{reg: r, framework: framework, component: component}
}

// Err returns every registration error so far, joined; nil if none.
func (r *Registrar) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.errs...)
}

// Bool registers a KindBool parameter.
func (r *Registrar) Bool(s Spec) Param[bool] { return register[bool](r, KindBool, s) }

// Int registers a KindInt parameter.
func (r *Registrar) Int(s Spec) Param[int] { return register[int](r, KindInt, s) }

// Size registers a KindSize parameter, in bytes.
func (r *Registrar) Size(s Spec) Param[int64] { return register[int64](r, KindSize, s) }

// Float registers a KindFloat parameter.
func (r *Registrar) Float(s Spec) Param[float64] { return register[float64](r, KindFloat, s) }

// String registers a KindString parameter.
func (r *Registrar) String(s Spec) Param[string] { return register[string](r, KindString, s) }

// List registers a KindList parameter.
func (r *Registrar) List(s Spec) Param[[]string] { return register[[]string](r, KindList, s) }

// Enum registers a KindEnum parameter; its value is the canonical name from s.Values.
func (r *Registrar) Enum(s Spec) Param[string] { return register[string](r, KindEnum, s) }

// Verbosity registers a KindVerbosity parameter.
func (r *Registrar) Verbosity(s Spec) Param[Verbosity] {
	return register[Verbosity](r, KindVerbosity, s)
}

func register[T any](r *Registrar, k Kind, s Spec) Param[T] {
	d := Def{
		Name:       r.framework + "_" + r.component + "_" + s.Name,
		Framework:  r.framework,
		Component:  r.component,
		Kind:       k,
		Default:    s.Default,
		Help:       s.Help,
		Level:      s.Level,
		Synonyms:   s.Synonyms,
		Deprecated: s.Deprecated,
		Values:     s.Values,
		Accepts:    s.Accepts,
		Validate:   s.Validate,
		Range:      s.Range,
		Excludes:   s.Excludes,
	}
	if err := r.reg.Register(d); err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
	}
	return Param[T]{name: d.Name}
}

// Define registers a full definition in the Registrar's scope: its name must
// begin with <framework>_<component>_. It is for parameters described
// elsewhere, such as an out-of-process component's.
func (r *Registrar) Define(d Def) error {
	prefix := r.framework + "_" + r.component + "_"
	if !strings.HasPrefix(d.Name, prefix) || d.Name == prefix {
		err := fmt.Errorf("%w: parameter %q of %s/%s does not begin with %q",
			ErrRegistration, d.Name, r.framework, r.component, prefix)
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
		return err
	}
	d.Framework, d.Component = r.framework, r.component
	if err := r.reg.Register(d); err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
		return err
	}
	return nil
}

// Param is a typed handle on a registered parameter.
type Param[T any] struct{ name string }

// Name is the parameter's full name.
func (p Param[T]) Name() string { return p.name }

// Get returns the parameter's value in s. It panics if the parameter is not in s,
// which means it was not registered (or failed to register) before Resolve.
func (p Param[T]) Get(s *Snapshot) T {
	v, ok := s.value(p.name)
	if !ok {
		panic(fmt.Sprintf("params: parameter %q is not in the snapshot: was it registered before Resolve?", p.name))
	}
	t, ok := v.Parsed.(T)
	if !ok {
		panic(fmt.Sprintf("params: parameter %q holds a %T, not a %T", p.name, v.Parsed, t))
	}
	if l, ok := any(t).([]string); ok {
		// The snapshot is shared; hand out a copy.
		return any(slices.Clone(l)).(T)
	}
	return t
}
