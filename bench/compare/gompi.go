package compare

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Components lists the components of a framework that a gompi build
// has, as its gompi_info --parsable reports them ("mca:btl:sm:..."):
// the comparison runs a gompi side only over a transport it has.
func Components(ctx context.Context, gompiInfo, framework string) ([]string, error) {
	cmd := exec.CommandContext(ctx, gompiInfo, "--parsable")
	out, err := cmd.Output()
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

// parseComponents picks the component names of one framework out of
// gompi_info's parsable records, in order, each once.
func parseComponents(out, framework string) []string {
	prefix := "mca:" + framework + ":"
	var comps []string
	for line := range strings.Lines(out) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
		if !ok {
			continue
		}
		name, _, ok := strings.Cut(rest, ":")
		if ok && name != "" && name != "base" && !slices.Contains(comps, name) {
			comps = append(comps, name)
		}
	}
	return comps
}
