package params

import "slices"

// Snapshot is an immutable set of resolved values, safe for concurrent reads.
// Every accessor returns copies, so callers cannot change it.
type Snapshot struct {
	values   []Value        // sorted like Registry.Defs
	index    map[string]int // every accepted name → index in values
	warnings []string
}

// Lookup returns the value of the parameter with the given full name,
// synonym or deprecated name.
func (s *Snapshot) Lookup(name string) (Value, bool) {
	v, ok := s.value(name)
	if !ok {
		return Value{}, false
	}
	return cloneValue(v), true
}

// IsSet reports whether the parameter's value came from anywhere but its
// default: a component may treat a value the user chose more strictly.
func (s *Snapshot) IsSet(name string) bool {
	v, ok := s.value(name)
	return ok && v.Source.Kind != SourceDefault
}

// Values lists every resolved value, sorted by framework, component and name.
func (s *Snapshot) Values() []Value {
	out := make([]Value, len(s.values))
	for i, v := range s.values {
		out[i] = cloneValue(v)
	}
	return out
}

// Warnings lists the problems Resolve tolerated (unknown names, deprecated
// names, ignored values), in a deterministic order.
func (s *Snapshot) Warnings() []string { return slices.Clone(s.warnings) }

// value returns the shared, uncopied value.
func (s *Snapshot) value(name string) (Value, bool) {
	if s == nil {
		return Value{}, false
	}
	i, ok := s.index[name]
	if !ok {
		return Value{}, false
	}
	return s.values[i], true
}

func cloneValue(v Value) Value {
	v.Def = cloneDef(v.Def)
	if l, ok := v.Parsed.([]string); ok {
		v.Parsed = slices.Clone(l)
	}
	return v
}
