package mca

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// FrameworkSpec describes a framework to the registry.
type FrameworkSpec struct {
	Name        string  // lower case, no '_' (the name mca_<framework>_<component> is split on it)
	Version     Version // the framework's API version
	Description string
	// Accepts checks that a component implements the framework's interface.
	// A component it rejects is refused at load, with its error.
	Accepts func(Component) error
	// Opt-in frameworks (prof) run only the components their selection
	// parameter names: empty selects none, where it selects all elsewhere.
	OptIn bool
	// PriorityRole says what a component's priority decides, for its
	// help; empty: among the components that accept, the highest runs.
	PriorityRole string
	// Plugin, if set, lets the framework take out-of-process components:
	// it returns a component of the framework that embeds p, which runs the
	// lifecycle, and speaks the framework's own service over p.Conn().
	Plugin func(p *Plugin) Component
}

// Registration is one registered component: its Info and who registered it.
type Registration struct {
	Info
	registrant string
}

// FullName returns mca_<framework>_<component>.
func FullName(framework, component string) string {
	return "mca_" + framework + "_" + component
}

// Registry holds the frameworks and components linked into the program.
// It is filled from init functions and safe for concurrent use.
type Registry struct {
	mu         sync.RWMutex
	frameworks map[string]FrameworkSpec
	fwOwner    map[string]string
	components map[string]*Registration
}

// NewRegistry returns an empty registry. Programs use the default one
// through Register and RegisterFramework; tests make their own.
func NewRegistry() *Registry {
	return &Registry{
		frameworks: map[string]FrameworkSpec{},
		fwOwner:    map[string]string{},
		components: map[string]*Registration{},
	}
}

// defaultRegistry is the program's registry, filled by init functions the
// way database/sql drivers register.
var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry that Register and RegisterFramework fill.
func DefaultRegistry() *Registry { return defaultRegistry }

// RegisterFramework adds a framework to the default registry. It panics on
// a malformed or duplicate name: that is a programming error.
func RegisterFramework(spec FrameworkSpec) { defaultRegistry.RegisterFramework(spec) }

// Register adds a component to the default registry. info.New must return
// a fresh component and have no side effects; it is not called here. It
// panics on a malformed or duplicate name, naming both registrants.
func Register(info Info) { defaultRegistry.Register(info) }

var (
	frameworkName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	componentName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
)

// RegisterFramework adds a framework; see the package-level function.
func (r *Registry) RegisterFramework(spec FrameworkSpec) {
	who := registrant()
	if !frameworkName.MatchString(spec.Name) {
		panic(fmt.Sprintf("mca: framework name %q registered by %s is malformed: "+
			"it must be lower-case letters and digits, without '_'", spec.Name, who))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, dup := r.fwOwner[spec.Name]; dup {
		panic(fmt.Sprintf("mca: framework %q registered twice: by %s and by %s", spec.Name, prev, who))
	}
	r.frameworks[spec.Name] = spec
	r.fwOwner[spec.Name] = who
}

// Register adds a component; see the package-level function.
func (r *Registry) Register(info Info) {
	who := registrant()
	if err := r.add(info, who); err != nil {
		panic("mca: " + err.Error())
	}
}

// add checks info and adds it; registrant names who asked, for messages.
func (r *Registry) add(info Info, who string) error {
	full := info.FullName()
	switch {
	case info.New == nil:
		return fmt.Errorf("component %q registered by %s has a nil constructor", full, who)
	case info.Framework == "" || info.Name == "":
		return fmt.Errorf("component %q registered by %s has an empty framework or component name", full, who)
	case !frameworkName.MatchString(info.Framework):
		return fmt.Errorf("component %q registered by %s names the malformed framework %q: "+
			"a framework name is lower-case letters and digits, without '_'", full, who, info.Framework)
	case info.Name == "base":
		return fmt.Errorf("component %q registered by %s is named \"base\", which is reserved for framework-level parameters", full, who)
	case !componentName.MatchString(info.Name):
		return fmt.Errorf("component %q registered by %s has a malformed name %q: "+
			"use lower-case letters, digits and single '_' between words", full, who, info.Name)
	}
	if info.Origin == "" {
		info.Origin = OriginStatic
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.frameworks[info.Framework]; !ok {
		return fmt.Errorf("component %q registered by %s belongs to the unknown framework %q (known: %s)",
			full, who, info.Framework, strings.Join(sortedKeys(r.frameworks), ", "))
	}
	if prev, dup := r.components[full]; dup {
		return fmt.Errorf("component %q registered twice: by %s and by %s", full, prev.registrant, who)
	}
	r.components[full] = &Registration{Info: info, registrant: who}
	return nil
}

// Frameworks returns the registered frameworks sorted by name.
func (r *Registry) Frameworks() []FrameworkSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]FrameworkSpec, 0, len(r.frameworks))
	for _, name := range sortedKeys(r.frameworks) {
		out = append(out, r.frameworks[name])
	}
	return out
}

// Components returns the components registered for a framework, sorted by name.
func (r *Registry) Components(framework string) []*Registration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Registration
	for _, reg := range r.components {
		if reg.Framework == framework {
			out = append(out, reg)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// registrant names the function outside this package that called into the
// registry, with its file and line, so duplicate registrations name both.
func registrant() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/gompi/gompi/mca.") || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line)
		}
		if !more {
			return "unknown caller"
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
