package compare

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Component is one component of a gompi build, as gompi_info reports it.
type Component struct {
	Name    string
	Status  string // available, excluded (by a selection) or refused
	Refused string // why it refused to open
}

// Components lists the components of a framework that a gompi build
// has, from its gompi_info --parsable ("mca:btl:sm:status:available"):
// the comparison runs a gompi side only over a transport it has.
func Components(ctx context.Context, gompiInfo, framework string) ([]Component, error) {
	out, err := exec.CommandContext(ctx, gompiInfo, "--parsable").Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		return nil, fmt.Errorf("listing gompi's %s components: %s --parsable: %w\n%s", framework, gompiInfo, err, tail(stderr, 1500))
	}
	comps := parseComponents(string(out), framework)
	if len(comps) == 0 {
		return nil, fmt.Errorf("listing gompi's %s components: %s --parsable names none", framework, gompiInfo)
	}
	return comps, nil
}

// parseComponents picks one framework's components out of gompi_info's
// parsable records, in order.
func parseComponents(out, framework string) []Component {
	prefix := "mca:" + framework + ":"
	var comps []Component
	for line := range strings.Lines(out) {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), prefix)
		if !ok {
			continue
		}
		name, rest, ok := strings.Cut(rest, ":")
		if !ok || name == "" || name == "base" {
			continue
		}
		i := slices.IndexFunc(comps, func(c Component) bool { return c.Name == name })
		if i < 0 {
			comps = append(comps, Component{Name: name})
			i = len(comps) - 1
		}
		switch key, val, _ := strings.Cut(rest, ":"); key {
		case "status":
			comps[i].Status = val
		case "refused":
			comps[i].Refused = val
		}
	}
	return comps
}

// Usable says whether a gompi side can run over the named component, and
// if not, why, for the report.
func Usable(comps []Component, framework, name string) (bool, string) {
	i := slices.IndexFunc(comps, func(c Component) bool { return c.Name == name })
	if i < 0 {
		names := make([]string, len(comps))
		for j, c := range comps {
			names[j] = c.Name
		}
		return false, fmt.Sprintf("this build of gompi has no %s %s (it has %s)", name, framework, strings.Join(names, ", "))
	}
	if c := comps[i]; c.Status == "refused" {
		return false, fmt.Sprintf("gompi's %s %s refuses to open here: %s", name, framework, c.Refused)
	}
	return true, ""
}
