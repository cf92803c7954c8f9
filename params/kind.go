package params

import (
	"fmt"
	"strings"
)

// String names the kind ("bool", "int", "size", "float", "string", "list", "enum", "verbosity").
func (k Kind) String() string {
	switch k {
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindSize:
		return "size"
	case KindFloat:
		return "float"
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindEnum:
		return "enum"
	case KindVerbosity:
		return "verbosity"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the kind String names.
func ParseKind(name string) (Kind, bool) {
	for k := KindBool; k <= KindVerbosity; k++ {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

func (k Kind) valid() bool { return k >= KindBool && k <= KindVerbosity }

// String renders a source for people: "default", "command line",
// "environment GOMPI_MCA_x", "file /etc/x.conf:12", "override file /etc/y.conf:3";
// a synonym or deprecated name used is appended as " (as old_name)".
func (s Source) String() string {
	var base string
	switch s.Kind {
	case SourceDefault:
		base = "default"
	case SourceCommandLine:
		base = "command line"
	case SourceEnv:
		// Name is the variable, which already shows the name used.
		return "environment " + s.Name
	case SourceFile:
		base = fmt.Sprintf("file %s:%d", s.Path, s.Line)
	case SourceOverride:
		base = fmt.Sprintf("override file %s:%d", s.Path, s.Line)
	default:
		base = fmt.Sprintf("SourceKind(%d)", int(s.Kind))
	}
	if s.Name != "" {
		base += " (as " + s.Name + ")"
	}
	return base
}

// where renders s after a verb ("set on the command line", "unknown ... in
// file x:3"), without the " (as old_name)" suffix, for warnings that already
// name the name used.
func where(s Source) string {
	if s.Kind == SourceCommandLine {
		return "on the command line"
	}
	if s.Kind != SourceEnv {
		s.Name = ""
	}
	return "in " + s.String()
}

// Allowed describes the accepted values of a parameter, for messages and gompi_info.
func (d Def) Allowed() string {
	if d.Accepts != "" {
		return d.Accepts
	}
	switch d.Kind {
	case KindBool:
		return "true, false, 1, 0, yes or no"
	case KindInt:
		return "an integer"
	case KindSize:
		return "a size in bytes with optional k, m or g suffix"
	case KindFloat:
		return "a floating-point number"
	case KindString:
		return "any text"
	case KindList:
		return "a comma-separated list"
	case KindEnum:
		items := make([]string, len(d.Values))
		for i, v := range d.Values {
			items[i] = v.Name
			if v.Help != "" {
				items[i] += " (" + v.Help + ")"
			}
		}
		return "one of: " + strings.Join(items, ", ")
	case KindVerbosity:
		return "none, error, warn, info, debug, trace or a number from -1 to 100"
	}
	return "nothing (unknown kind " + d.Kind.String() + ")"
}
