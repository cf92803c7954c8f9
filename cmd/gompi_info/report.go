package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/mca"
)

// report is what gompi_info prints, in a form each renderer walks.
type report struct {
	Version      string      `json:"version"`
	GoVersion    string      `json:"go_version"`
	ModelVersion string      `json:"model_version"`
	Frameworks   []framework `json:"frameworks"`
	Parameters   []parameter `json:"parameters,omitempty"`

	// Hidden counts the parameters that matched but lie above Level, and
	// HiddenLevel is the highest of their levels: ompi_info answers such a
	// query with nothing, and its users take the parameter for missing.
	Level       int `json:"-"`
	Hidden      int `json:"-"`
	HiddenLevel int `json:"-"`
}

type framework struct {
	Name        string `json:"name"`
	API         string `json:"api_version"`
	Description string `json:"description"`
	// Selection is the framework's selection parameter's value: "a,b" (only
	// these), "^a,b" (all but these) or "" (all, or none when OptIn).
	Selection  string      `json:"selection"`
	OptIn      bool        `json:"opt_in"`
	Components []component `json:"components"`
	// Stack is set for frameworks whose selection is also an order (prof):
	// the components that would run, outermost first.
	Stack *[]string `json:"stack,omitempty"`
}

type component struct {
	Name string `json:"name"`
	// The versions are empty, and left out of the JSON, for a plugin
	// that could not be described.
	Version string `json:"version,omitempty"`
	Model   string `json:"model_version,omitempty"`
	API     string `json:"api_version,omitempty"`
	Origin  string `json:"origin"`
	// Status is available; excluded (named by a "^a,b" list); unselected
	// (not named by an "a,b" list, or by the empty list of an opt-in
	// framework, which runs none); or refused.
	Status    string `json:"status"`
	RefusedBy string `json:"refused_because,omitempty"`
}

type parameter struct {
	Name       string       `json:"name"`
	Framework  string       `json:"framework"`
	Component  string       `json:"component"`
	Type       string       `json:"type"`
	Value      string       `json:"value"`
	Source     string       `json:"source"`
	Default    string       `json:"default"`
	Level      int          `json:"level"`
	Help       string       `json:"help"`
	Allowed    string       `json:"allowed"`
	Values     []enumerator `json:"enumerators,omitempty"`
	Synonyms   []string     `json:"synonyms,omitempty"`
	Deprecated []string     `json:"deprecated_names,omitempty"`
}

type enumerator struct {
	Name string `json:"name"`
	Help string `json:"help"`
}

// filter says which parameters to list.
type filter struct {
	framework, component string // "all" matches every one; "" lists none
	level                int
}

func buildReport(sys *mca.System, f filter) (report, error) {
	r := report{Version: version.Version, GoVersion: runtime.Version(), ModelVersion: mca.ModelVersion().String()}
	names := map[string][]string{"mca": {"base"}}
	for _, fw := range sys.Frameworks() {
		sel := fw.Selection()
		out := framework{Name: fw.Name(), API: fw.Spec().Version.String(), Description: fw.Spec().Description,
			Selection: strings.Join(sel.Names, ","), OptIn: fw.Spec().OptIn}
		if sel.Exclude {
			out.Selection = "^" + out.Selection
		}
		names[fw.Name()] = []string{"base"}
		for _, c := range fw.Components() {
			st := "available"
			switch {
			case c.Excluded && sel.Exclude:
				st = "excluded"
			case c.Excluded:
				st = "unselected"
			}
			rc := component{Name: c.Name, Origin: c.Origin, Status: st}
			if c.ModelVersion != (mca.Version{}) { // a plugin that could not be described says none
				rc.Version, rc.Model, rc.API = c.Version.String(), c.ModelVersion.String(), c.FrameworkVersion.String()
			}
			if c.Refused != nil {
				rc.Status, rc.RefusedBy = "refused", c.Refused.Error()
			}
			out.Components = append(out.Components, rc)
			names[fw.Name()] = append(names[fw.Name()], c.Name)
		}
		if fw.Spec().OptIn {
			stack := stackOf(fw.Selection(), out.Components)
			out.Stack = &stack
		}
		r.Frameworks = append(r.Frameworks, out)
	}
	if f.framework == "" {
		return r, nil
	}
	r.Level = f.level
	// Parameters that belong to no framework (the MPI layer's mpi_*) name
	// their own owner.
	for _, d := range sys.Params().Defs() {
		if !slices.Contains(names[d.Framework], d.Component) {
			names[d.Framework] = append(names[d.Framework], d.Component)
		}
	}
	if err := checkFilter(f, names); err != nil {
		return r, err
	}
	for _, v := range sys.Snapshot().Values() {
		d := v.Def
		if !matches(f.framework, d.Framework) || !matches(f.component, d.Component) {
			continue
		}
		if d.Level > f.level {
			r.Hidden++
			r.HiddenLevel = max(r.HiddenLevel, d.Level)
			continue
		}
		p := parameter{Name: d.Name, Framework: d.Framework, Component: d.Component, Type: d.Kind.String(),
			Value: v.Raw, Source: v.Source.String(), Default: d.Default, Level: d.Level, Help: d.Help,
			Allowed: d.Allowed(), Synonyms: d.Synonyms, Deprecated: d.Deprecated}
		for _, e := range d.Values {
			p.Values = append(p.Values, enumerator(e))
		}
		r.Parameters = append(r.Parameters, p)
	}
	return r, nil
}

// stackOf lists the components an opt-in framework would stack: the
// include list's order, or the available ones (by name) with an exclude list.
func stackOf(sel mca.Selection, comps []component) []string {
	stack := []string{}
	if !sel.Exclude {
		return append(stack, sel.Names...)
	}
	for _, c := range comps {
		if c.Status == "available" {
			stack = append(stack, c.Name)
		}
	}
	return stack
}

func matches(want, got string) bool { return want == "all" || want == got }

// checkFilter turns a --param naming nothing into an error listing what exists.
func checkFilter(f filter, names map[string][]string) error {
	if f.framework == "all" {
		if f.component != "all" {
			return fmt.Errorf("--param all %s: with framework \"all\" the component must be \"all\" too", f.component)
		}
		return nil
	}
	comps, ok := names[f.framework]
	if !ok {
		fws := make([]string, 0, len(names))
		for n := range names {
			fws = append(fws, n)
		}
		slices.Sort(fws)
		return fmt.Errorf("--param: unknown framework %q (known: all, %s)", f.framework, strings.Join(fws, ", "))
	}
	if f.component != "all" && !slices.Contains(comps, f.component) {
		return fmt.Errorf("--param %s: unknown component %q (known: all, %s)", f.framework, f.component, strings.Join(comps, ", "))
	}
	return nil
}

// levelName is Open MPI's name for an info level.
func levelName(level int) string {
	who := [...]string{"user", "tuner", "dev"}
	depth := [...]string{"basic", "detail", "all"}
	if level < 1 || level > 9 {
		return fmt.Sprint(level)
	}
	return fmt.Sprintf("%d %s/%s", level, who[(level-1)/3], depth[(level-1)%3])
}
