package mca

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gompi/gompi/params"
)

// Selection is a parsed framework selection parameter: "a,b" keeps only the
// named components, "^a,b" keeps all but them, "" keeps all.
type Selection struct {
	Exclude bool
	Names   []string
}

// ParseSelection parses a selection list. Whitespace around names is
// ignored; a '^' anywhere but at the start, or an empty name, is an error.
func ParseSelection(s string) (Selection, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Selection{}, nil
	}
	var sel Selection
	if strings.HasPrefix(s, "^") {
		sel.Exclude = true
		s = strings.TrimSpace(s[1:])
	}
	if strings.Contains(s, "^") {
		return Selection{}, marked{errors.New(`'^' may only start the list: write "a,b" to use only a and b, or "^a,b" to use all but a and b`), ErrSelection}
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return Selection{}, marked{errors.New("empty component name in the list"), ErrSelection}
		}
		if !slices.Contains(sel.Names, name) {
			sel.Names = append(sel.Names, name)
		}
	}
	return sel, nil
}

// Allows reports whether the selection keeps the named component.
func (s Selection) Allows(name string) bool {
	if len(s.Names) == 0 {
		return true
	}
	return slices.Contains(s.Names, name) != s.Exclude
}

// Requested reports whether the user named the component in an include list.
func (s Selection) Requested(name string) bool {
	return !s.Exclude && slices.Contains(s.Names, name)
}

// Check returns an error for an include-list name no available component
// has, listing the available ones, and warnings for such names in an
// exclude list (harmless but probably a typo). An exclude list that
// leaves none of the available components is an error too (ErrSelection).
// v is the selection parameter's value the selection was parsed from:
// the messages say where it came from.
func (s Selection) Check(framework string, v params.Value, available []string) (warnings []string, err error) {
	from := fmt.Sprintf("%s: value %q from %s", framework, v.Raw, v.Source)
	for _, name := range s.Names {
		if slices.Contains(available, name) {
			continue
		}
		if s.Exclude {
			warnings = append(warnings, fmt.Sprintf("%s: excludes %q, which no component is named (available: %s)",
				from, name, listOrNone(available)))
			continue
		}
		return warnings, marked{fmt.Errorf("%s: no component named %q (available: %s)",
			from, name, listOrNone(available)), ErrUnknownComponent}
	}
	if s.Exclude && len(available) > 0 && !slices.ContainsFunc(available, s.Allows) {
		return warnings, marked{fmt.Errorf("%s excludes every component (available: %s): nothing is left to select; "+
			`name the components to use ("a,b") or exclude fewer`, from, listOrNone(available)), ErrSelection}
	}
	return warnings, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
