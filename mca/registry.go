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
}

// Registration is one registered component.
type Registration struct {
	Framework string
	Component string
	New       func() Component // returns a fresh, unopened component; no side effects
	// Identity read from one instance at registration.
	ModelVersion     Version
	FrameworkVersion Version
	Version          Version
	DefaultPriority  int
	registrant       string
}

// Name is the component's full name, mca_<framework>_<component>.
func (r *Registration) Name() string { return FullName(r.Framework, r.Component) }

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

// Register adds a component to the default registry. newComponent must
// return a fresh component and have no side effects. It panics on a
// malformed or duplicate name, naming both registrants.
func Register(newComponent func() Component) { defaultRegistry.Register(newComponent) }

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
func (r *Registry) Register(newComponent func() Component) {
	who := registrant()
	if newComponent == nil {
		panic("mca: nil component constructor registered by " + who)
	}
	c := newComponent()
	if c == nil {
		panic("mca: component constructor registered by " + who + " returned nil")
	}
	b := c.MCA()
	full := FullName(b.FrameworkName, b.ComponentName)
	switch {
	case b.FrameworkName == "" || b.ComponentName == "":
		panic(fmt.Sprintf("mca: component %q registered by %s has an empty framework or component name", full, who))
	case !frameworkName.MatchString(b.FrameworkName):
		panic(fmt.Sprintf("mca: component %q registered by %s names the malformed framework %q: "+
			"a framework name is lower-case letters and digits, without '_'", full, who, b.FrameworkName))
	case b.ComponentName == "base":
		panic(fmt.Sprintf("mca: component %q registered by %s is named \"base\", which is reserved for framework-level parameters", full, who))
	case !componentName.MatchString(b.ComponentName):
		panic(fmt.Sprintf("mca: component %q registered by %s has a malformed name %q: "+
			"use lower-case letters, digits and single '_' between words", full, who, b.ComponentName))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.frameworks[b.FrameworkName]; !ok {
		panic(fmt.Sprintf("mca: component %q registered by %s belongs to the unknown framework %q (known: %s)",
			full, who, b.FrameworkName, strings.Join(sortedKeys(r.frameworks), ", ")))
	}
	if prev, dup := r.components[full]; dup {
		panic(fmt.Sprintf("mca: component %q registered twice: by %s and by %s", full, prev.registrant, who))
	}
	r.components[full] = &Registration{
		Framework:        b.FrameworkName,
		Component:        b.ComponentName,
		New:              newComponent,
		ModelVersion:     b.ModelVersion,
		FrameworkVersion: b.FrameworkVersion,
		Version:          b.ComponentVersion,
		DefaultPriority:  b.DefaultPriority,
		registrant:       who,
	}
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
	sort.Slice(out, func(i, j int) bool { return out[i].Component < out[j].Component })
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
