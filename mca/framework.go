package mca

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/params"
)

// Framework is one framework's runtime in a process: its components, its
// parameters and its logger. Its methods are safe for concurrent use.
type Framework struct {
	spec FrameworkSpec
	log  hclog.Logger

	selectParam  params.Param[string]
	verboseParam params.Param[params.Verbosity]

	mu      sync.Mutex
	snap    *params.Snapshot
	sel     Selection
	loaded  []*slot   // passed the version checks and registered their parameters
	refused []*slot   // did not: version, interface or registration failure
	opened  []*slot   // open, in open order
	state   lifecycle //
	failed  []ComponentError
}

type lifecycle int

const (
	stateRegistered lifecycle = iota
	stateResolved
	stateOpen
	stateSelected
	stateClosed
)

type slot struct {
	reg      *Registration
	comp     Component
	priority params.Param[int]
	env      *Env
	err      error // why it was refused
}

// ComponentError is a component's failure in one lifecycle step: the one
// place that names the component, "btl tcp: open: ...", for the component
// returns its errors without its own name. It matches ErrComponentFailed.
type ComponentError struct {
	Framework, Component, Step string
	Err                        error
}

func (e ComponentError) Error() string {
	return fmt.Sprintf("%s %s: %s: %v", e.Framework, e.Component, e.Step, e.Err)
}

func (e ComponentError) Unwrap() error { return e.Err }

// Is reports that every ComponentError is a component failure.
func (e ComponentError) Is(target error) bool { return target == ErrComponentFailed }

// Selected is a component that opened and accepted its query.
type Selected struct {
	Name      string
	Component Component
	Priority  int
	Env       *Env
}

// ComponentInfo describes a component for listings such as gompi_info.
type ComponentInfo struct {
	Framework        string
	Name             string
	Version          Version
	ModelVersion     Version
	FrameworkVersion Version
	Origin           string // OriginStatic, or a plugin's executable
	Refused          error  // non-nil when the component could not be loaded
	Excluded         bool   // the framework's selection parameter leaves it out
}

func newFramework(spec FrameworkSpec, regs []*Registration, preg *params.Registry, root hclog.Logger) *Framework {
	f := &Framework{spec: spec, log: root.Named(spec.Name)}
	base := preg.Scope(spec.Name, "base")
	f.verboseParam = base.Verbosity(params.Spec{
		Name:    "verbose",
		Default: "warn",
		Level:   3,
		Help: fmt.Sprintf("Log level of the %s framework and its components; debug (60) shows every "+
			"register, open, query, select and close step. Numbers: 0 errors only, 1-39 warnings, "+
			"40 info, 60 debug, 80 trace", spec.Name),
	})
	sel, err := params.Define[string](preg, params.Def{
		Name:      spec.Name,
		Framework: spec.Name,
		Component: "base",
		Kind:      params.KindString,
		Level:     2,
		Help:      selectionHelp(spec),
		Validate:  func(v any) error { _, err := ParseSelection(v.(string)); return err },
	})
	if err != nil {
		panic(err) // framework names are unique and valid, so this is a bug in mca
	}
	f.selectParam = sel
	if err := base.Err(); err != nil {
		panic(err)
	}
	for _, reg := range regs {
		f.load(reg, preg)
	}
	return f
}

func selectionHelp(spec FrameworkSpec) string {
	if spec.OptIn {
		return fmt.Sprintf("Which %s components run, in this order: \"a,b\" uses a and b, \"^a,b\" uses all but a "+
			"and b, empty uses none", spec.Name)
	}
	return fmt.Sprintf("Which %s components may run: \"a,b\" uses only a and b, \"^a,b\" uses all but a and b, "+
		"empty uses all", spec.Name)
}

// allows reports whether the selection parameter lets the named component run.
func (f *Framework) allows(name string) bool {
	if f.spec.OptIn && len(f.sel.Names) == 0 {
		return false
	}
	return f.sel.Allows(name)
}

// Selection returns the parsed selection parameter, once resolved: its
// include list's order is the order some frameworks (prof) stack in.
func (f *Framework) Selection() Selection {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sel
}

// load instantiates one component, checks its versions and interface and
// runs its register-params hook.
func (f *Framework) load(reg *Registration, preg *params.Registry) {
	s := &slot{reg: reg, comp: reg.Instantiate()}
	name := reg.Name
	switch {
	case reg.ModelVersion.Major != ModelMajor:
		s.err = fmt.Errorf("%w: built for component model %s, this program has %s (major versions must match)",
			ErrVersion, reg.ModelVersion, ModelVersion())
	case reg.FrameworkVersion.Major != f.spec.Version.Major:
		s.err = fmt.Errorf("%w: built for %s framework API %s, this program has %s (major versions must match)",
			ErrVersion, f.spec.Name, reg.FrameworkVersion, f.spec.Version)
	case f.spec.Accepts != nil:
		s.err = f.spec.Accepts(s.comp)
	}
	if s.err != nil && reg.Origin != OriginStatic {
		// A plugin's refusal names its executable, as its other failures do.
		s.err = pluginError(reg.Origin, fmt.Errorf("describe: %w", s.err))
	}
	if s.err == nil {
		r := preg.Scope(f.spec.Name, name)
		role := cmp.Or(f.spec.PriorityRole, "among the components that accept, higher wins")
		s.priority = r.Int(params.Spec{
			Name:    priorityName,
			Default: strconv.Itoa(reg.DefaultPriority),
			Level:   6,
			Help:    fmt.Sprintf("Priority of the %s %s component: %s; a negative priority disables the component", name, f.spec.Name, role),
		})
		s.err = errors.Join(s.comp.RegisterParams(r), r.Err())
	}
	if s.err != nil {
		f.refused = append(f.refused, s)
		return
	}
	f.loaded = append(f.loaded, s)
}

// has reports whether a component of that name is registered, loaded or not.
func (f *Framework) has(name string) bool {
	for _, s := range append(append([]*slot{}, f.loaded...), f.refused...) {
		if s.reg.Name == name {
			return true
		}
	}
	return false
}

// refuse records a component that cannot be loaded at all, such as a
// plugin that did not describe itself.
func (f *Framework) refuse(reg *Registration, err error) {
	f.refused = append(f.refused, &slot{reg: reg, err: err})
}

// resolve takes the resolved parameters: the log level, the selection, and
// reports the components refused at load.
func (f *Framework) resolve(snap *params.Snapshot) (warnings []string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap = snap
	f.log.SetLevel(LogLevel(f.verboseParam.Get(snap)))
	// Registration ran before the level was known, so its steps are logged now.
	for _, s := range f.loaded {
		f.log.Debug("registered component", "component", s.reg.Name, "version", s.reg.Version)
	}
	for _, s := range f.refused {
		// Returned, not logged: in a job only one rank (or gompirun) says it.
		warnings = append(warnings, fmt.Sprintf("%s: component %s refused: %v", f.spec.Name, s.reg.Name, s.err))
	}
	v, _ := snap.Lookup(f.selectParam.Name())
	sel, err := ParseSelection(v.Raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.spec.Name, err)
	}
	var all []string
	for _, s := range append(append([]*slot{}, f.loaded...), f.refused...) {
		all = append(all, s.reg.Name)
	}
	sort.Strings(all)
	checked, err := sel.Check(f.spec.Name, v, all)
	warnings = append(warnings, checked...)
	if err != nil {
		return warnings, err
	}
	for _, s := range f.refused {
		if sel.Requested(s.reg.Name) {
			return warnings, ComponentError{Framework: f.spec.Name, Component: s.reg.Name, Step: "load", Err: s.err}
		}
	}
	f.sel = sel
	var errs []error
	for _, s := range f.loaded {
		pc, ok := s.comp.(ParamChecker)
		if !ok || !f.allows(s.reg.Name) || Disabled(snap, f.spec.Name, s.reg.Name) {
			continue
		}
		if err := pc.CheckParams(snap); err != nil {
			errs = append(errs, ComponentError{Framework: f.spec.Name, Component: s.reg.Name, Step: "parameters", Err: err})
		}
	}
	if len(errs) > 0 {
		return warnings, errors.Join(errs...)
	}
	f.state = stateResolved
	return warnings, nil
}

// Name is the framework's name.
func (f *Framework) Name() string { return f.spec.Name }

// Spec returns the framework's description.
func (f *Framework) Spec() FrameworkSpec { return f.spec }

// Logger is the framework's logger, named after it.
func (f *Framework) Logger() hclog.Logger { return f.log }

// priorityName is the parameter, <framework>_<component>_priority, that
// the framework registers for each component.
const priorityName = "priority"

// Disabled reports whether snap gives a component of framework a negative
// priority, with which it declines its query: for a caller that must know
// before any component opens, such as gompirun.
func Disabled(snap *params.Snapshot, framework, component string) bool {
	v, ok := snap.Lookup(framework + "_" + component + "_" + priorityName)
	n, isInt := v.Parsed.(int)
	return ok && isInt && n < 0
}

// Components describes every registered component of the framework, loaded or not.
func (f *Framework) Components() []ComponentInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ComponentInfo
	for _, s := range append(append([]*slot{}, f.loaded...), f.refused...) {
		out = append(out, ComponentInfo{
			Framework:        f.spec.Name,
			Name:             s.reg.Name,
			Version:          s.reg.Version,
			ModelVersion:     s.reg.ModelVersion,
			FrameworkVersion: s.reg.FrameworkVersion,
			Origin:           s.reg.Origin,
			Refused:          s.err,
			Excluded:         f.state != stateRegistered && !f.allows(s.reg.Name),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Failures lists the components that failed to open or query (declines are
// not failures).
func (f *Framework) Failures() []ComponentError {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ComponentError(nil), f.failed...)
}

// Open opens every loaded component the selection allows. A component that
// declines is closed silently; one that fails is closed and reported, and
// is an error when the user asked for it by name. On error every component
// opened so far is closed again, in reverse order.
func (f *Framework) Open(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != stateResolved {
		return fmt.Errorf("%s: open: %s", f.spec.Name, f.state.wrong("resolved"))
	}
	var errs []error
	for _, s := range f.loaded {
		name := s.reg.Name
		if !f.allows(name) {
			f.log.Debug("component excluded by selection", "component", name, "selection", f.selectParam.Name())
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("%s: open: %w", f.spec.Name, err))
			break
		}
		s.env = &Env{
			Params:    f.snap,
			Logger:    f.log.Named(name),
			Priority:  s.priority.Get(f.snap),
			Requested: f.sel.Requested(name),
		}
		f.log.Debug("opening component", "component", name)
		if err := s.comp.Open(ctx, s.env); err != nil {
			f.closeSlot(s)
			if err := f.report(s, "open", err); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		f.log.Debug("component opened", "component", name)
		f.opened = append(f.opened, s)
	}
	f.state = stateOpen
	if len(errs) > 0 {
		f.closeAll()
		return errors.Join(errs...)
	}
	return nil
}

// Select queries every open component and returns those that accept,
// highest priority first (ties in name order). The ones that decline,
// answer with a negative priority or fail are closed. The selected ones stay open until Close.
func (f *Framework) Select(ctx context.Context) ([]Selected, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != stateOpen {
		return nil, fmt.Errorf("%s: select: %s", f.spec.Name, f.state.wrong("open"))
	}
	var (
		out  []Selected
		keep []*slot
		errs []error
	)
	for _, s := range f.opened {
		name := s.reg.Name
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("%s: select: %w", f.spec.Name, err))
			keep = append(keep, s)
			continue
		}
		prio, err := s.comp.Query(ctx, s.env)
		if err == nil && prio < 0 {
			// As in Open MPI, a negative priority is how a user turns a
			// component off without naming the others.
			err = fmt.Errorf("%w: priority %d (a negative priority disables it)", ErrDeclined, prio)
		}
		if err != nil {
			f.closeSlot(s)
			if err := f.report(s, "query", err); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		f.log.Debug("component accepted", "component", name, "priority", prio)
		keep = append(keep, s)
		out = append(out, Selected{Name: name, Component: s.comp, Priority: prio, Env: s.env})
	}
	f.opened = keep
	f.state = stateSelected
	if len(errs) > 0 {
		f.closeAll()
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority > out[j].Priority })
	if f.log.IsDebug() {
		names := make([]string, len(out))
		for i, s := range out {
			names[i] = fmt.Sprintf("%s (priority %d)", s.Name, s.Priority)
		}
		f.log.Debug("selected components", "components", strings.Join(names, ", "))
	}
	return out, nil
}

// Close closes every open component in reverse open order. It is safe to
// call more than once.
func (f *Framework) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closeAll()
}

func (f *Framework) closeAll() error {
	var errs []error
	for i := len(f.opened) - 1; i >= 0; i-- {
		if err := f.closeSlot(f.opened[i]); err != nil {
			errs = append(errs, err)
		}
	}
	f.opened = nil
	if f.state != stateRegistered {
		f.state = stateClosed
	}
	return errors.Join(errs...)
}

func (f *Framework) closeSlot(s *slot) error {
	f.log.Debug("closing component", "component", s.reg.Name)
	if err := s.comp.Close(); err != nil {
		err = ComponentError{Framework: f.spec.Name, Component: s.reg.Name, Step: "close", Err: err}
		f.log.Warn("component failed to close", "component", s.reg.Name, "error", err.(ComponentError).Err)
		return err
	}
	return nil
}

// report handles a failed or declined open or query. It returns an error
// only when the failure must stop the framework: the user asked for the
// component by name, or the component says the error is fatal.
func (f *Framework) report(s *slot, step string, err error) error {
	name := s.reg.Name
	if errors.Is(err, ErrDeclined) {
		if s.env.Requested {
			f.log.Warn("requested component is not available", "component", name, "step", step, "reason", err)
		} else {
			f.log.Debug("component declined", "component", name, "step", step, "reason", err)
		}
		return nil
	}
	ce := ComponentError{Framework: f.spec.Name, Component: name, Step: step, Err: err}
	f.failed = append(f.failed, ce)
	if s.env.Requested || errors.Is(err, ErrFatal) {
		// Returned, not logged: the caller reports it, once.
		f.log.Debug("component failed", "component", name, "step", step, "error", err)
		return ce
	}
	f.log.Warn("component failed; continuing without it", "component", name, "step", step, "error", err)
	return nil
}

func (l lifecycle) wrong(want string) string {
	names := [...]string{"registered", "resolved", "open", "selected", "closed"}
	return fmt.Sprintf("framework is %s, must be %s", names[l], want)
}
