package params

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Names of the core's own parameters.
const (
	paramFilesName = "mca_base_param_files"
	strictName     = "mca_base_strict"
)

// Registry holds the registered parameters of one process. Safe for concurrent use.
// Create it with NewRegistry; a zero Registry lacks the core parameters.
type Registry struct {
	mu    sync.RWMutex
	defs  map[string]*Def   // by full name
	names map[string]string // every accepted name (full, synonym, deprecated) → full name
}

// NewRegistry returns a registry holding the core's own parameters
// (mca_base_param_files, mca_base_strict).
func NewRegistry() *Registry {
	r := &Registry{defs: map[string]*Def{}, names: map[string]string{}}
	core := r.Scope("mca", "base")
	core.List(Spec{
		Name:  "param_files",
		Level: 2,
		Help: "Extra parameter files, comma-separated, read after any --tune files and " +
			"before the user's file; the leftmost file wins. Each file must exist. " +
			"Can be set only on the command line or in the environment.",
	})
	core.Bool(Spec{
		Name:    "strict",
		Default: "false",
		Level:   2,
		Help: "Make unknown parameter names in the environment, parameter files or " +
			"on the command line errors instead of warnings.",
	})
	if err := core.Err(); err != nil {
		panic("params: core parameters: " + err.Error()) // a bug in this package
	}
	return r
}

// Register adds a definition. Registering an identical definition again is a no-op;
// a conflicting one is an error wrapping ErrRegistration naming both owners.
// An identical definition has the same name, kind, default and owner.
func (r *Registry) Register(d Def) error {
	d = cloneDef(d)
	if err := validateDef(&d); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.defs == nil { // a zero Registry works, without the core parameters
		r.defs, r.names = map[string]*Def{}, map[string]string{}
	}
	if old, ok := r.defs[d.Name]; ok {
		if old.Kind == d.Kind && old.Default == d.Default &&
			old.Framework == d.Framework && old.Component == d.Component {
			return nil
		}
		return regErr(&d, "already registered by %s with kind %v and default %q",
			owner(old), old.Kind, old.Default)
	}
	for _, n := range allNames(&d) {
		if full, ok := r.names[n]; ok {
			return regErr(&d, "name %q is already used by parameter %s (%s)",
				n, full, owner(r.defs[full]))
		}
	}
	r.defs[d.Name] = &d
	for _, n := range allNames(&d) {
		r.names[n] = d.Name
	}
	return nil
}

// validateDef checks everything about d that does not depend on other parameters.
func validateDef(d *Def) error {
	if !validName(d.Name) {
		return regErr(d, "invalid name: want lower snake case like btl_tcp_eager_limit")
	}
	if !d.Kind.valid() {
		return regErr(d, "invalid kind %v", d.Kind)
	}
	if strings.TrimSpace(d.Help) == "" {
		return regErr(d, "empty help")
	}
	if d.Level < 1 || d.Level > 9 {
		return regErr(d, "level %d is outside 1-9", d.Level)
	}
	seen := map[string]bool{}
	for _, n := range allNames(d) {
		if !validName(n) {
			return regErr(d, "invalid synonym or deprecated name %q", n)
		}
		if seen[n] {
			return regErr(d, "name %q is listed twice", n)
		}
		seen[n] = true
	}
	for _, n := range d.Excludes {
		if !validName(n) || n == d.Name {
			return regErr(d, "invalid excluded parameter %q", n)
		}
	}
	if err := validateValues(d); err != nil {
		return err
	}
	if d.Range != nil {
		if d.Range.kind != d.Kind {
			return regErr(d, "a %v range on a %v parameter", d.Range.kind, d.Kind)
		}
		if d.Accepts == "" {
			d.Accepts = d.Range.String()
		}
	}
	if _, bad := check(d, d.Default); bad != nil {
		return regErr(d, "default %q%s", d.Default, bad)
	}
	return nil
}

func validateValues(d *Def) error {
	if d.Kind != KindEnum {
		if len(d.Values) > 0 {
			return regErr(d, "values given for a %v parameter; only enums have values", d.Kind)
		}
		return nil
	}
	if len(d.Values) == 0 {
		return regErr(d, "enum without values")
	}
	for i, v := range d.Values {
		if strings.TrimSpace(v.Name) == "" || strings.Contains(v.Name, ",") {
			return regErr(d, "enum value %d has an empty name or a comma", i+1)
		}
		for _, w := range d.Values[:i] {
			if strings.EqualFold(v.Name, w.Name) {
				return regErr(d, "enum value %q is listed twice", v.Name)
			}
		}
	}
	return nil
}

func regErr(d *Def, format string, args ...any) error {
	return fmt.Errorf("%w: parameter %q (%s): %s", ErrRegistration, d.Name, owner(d), fmt.Sprintf(format, args...))
}

func owner(d *Def) string { return d.Framework + "/" + d.Component }

// allNames lists the names d answers to, its full name first.
func allNames(d *Def) []string {
	names := append([]string{d.Name}, d.Synonyms...)
	return append(names, d.Deprecated...)
}

// validName reports whether s matches ^[a-z][a-z0-9]*(_[a-z0-9]+)*$.
func validName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	underscore := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_':
			if underscore {
				return false
			}
			underscore = true
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			underscore = false
		default:
			return false
		}
	}
	return !underscore
}

// cloneDef copies d's slices so that neither the caller nor a reader can
// change a registered definition.
func cloneDef(d Def) Def {
	d.Synonyms = slices.Clone(d.Synonyms)
	d.Deprecated = slices.Clone(d.Deprecated)
	d.Values = slices.Clone(d.Values)
	d.Excludes = slices.Clone(d.Excludes)
	return d
}

// Lookup finds a definition by its name, a synonym or a deprecated name.
func (r *Registry) Lookup(name string) (Def, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	full, ok := r.names[name]
	if !ok {
		return Def{}, false
	}
	return cloneDef(*r.defs[full]), true
}

// Defs lists every definition sorted by framework, component and name.
func (r *Registry) Defs() []Def {
	r.mu.RLock()
	defs := make([]Def, 0, len(r.defs))
	for _, d := range r.defs {
		defs = append(defs, cloneDef(*d))
	}
	r.mu.RUnlock()
	slices.SortFunc(defs, func(a, b Def) int {
		return cmp.Or(
			cmp.Compare(a.Framework, b.Framework),
			cmp.Compare(a.Component, b.Component),
			cmp.Compare(a.Name, b.Name))
	})
	return defs
}
