package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gompi/gompi/mca"
)

// renderPretty prints the report for people, in ompi_info's layout.
// With paramsOnly, as for --param, only the parameters are printed.
func renderPretty(w io.Writer, r report, paramsOnly bool) {
	if !paramsOnly {
		renderComponents(w, r)
	}
	for _, p := range r.Parameters {
		head := fmt.Sprintf("MCA %s %s: parameter %q (current value: %q, data source: %s, level: %s, type: %s",
			p.Framework, p.Component, p.Name, p.Value, p.Source, levelName(p.Level), p.Type)
		if len(p.Synonyms) > 0 {
			head += ", synonyms: " + strings.Join(p.Synonyms, ", ")
		}
		if len(p.Deprecated) > 0 {
			head += ", deprecated names: " + strings.Join(p.Deprecated, ", ")
		}
		fmt.Fprintln(w, head+")")
		indent := strings.Repeat(" ", 10)
		fmt.Fprintf(w, "%s%s\n", indent, p.Help)
		fmt.Fprintf(w, "%sDefault: %q. Valid values: %s\n", indent, p.Default, p.Allowed)
	}
	if r.Hidden > 0 {
		fmt.Fprintf(w, "(%d more matching parameters above level %d: add --level %d to list them)\n",
			r.Hidden, r.Level, r.HiddenLevel)
	}
}

func renderComponents(w io.Writer, r report) {
	row := func(key, val string) { fmt.Fprintf(w, "%22s: %s\n", key, val) }
	row("Package", "gompi "+r.Version)
	row("Go version", r.GoVersion)
	row("MCA version", "v"+r.ModelVersion)
	for _, f := range r.Frameworks {
		row("MCA framework", fmt.Sprintf("%s (API v%s): %s", f.Name, f.API, f.Description))
		if len(f.Components) == 0 {
			row("MCA "+f.Name, "(no components)")
		}
		for _, c := range f.Components {
			key := "MCA " + f.Name
			origin := c.Origin
			if origin != mca.OriginStatic {
				origin = "plugin " + origin
			}
			val := fmt.Sprintf("%s (MCA v%s, API v%s, Component v%s, %s)", c.Name, c.Model, c.API, c.Version, origin)
			if c.Model == "" {
				val = fmt.Sprintf("%s (versions unknown, %s)", c.Name, origin)
			}
			switch c.Status {
			case "excluded":
				val += fmt.Sprintf(" excluded: the %s parameter is %q", f.Name, f.Selection)
			case "unselected":
				if f.Selection == "" { // an opt-in framework runs none by default
					val += fmt.Sprintf(" not selected: --mca %s %s runs it", f.Name, c.Name)
				} else {
					val += fmt.Sprintf(" not selected: the %s parameter is %q", f.Name, f.Selection)
				}
			case "refused":
				val += " refused: " + c.RefusedBy
			}
			row(key, val)
		}
		if f.Stack != nil {
			stack := "(none: --mca " + f.Name + " a,b runs a and b, a outermost)"
			if len(*f.Stack) > 0 {
				stack = strings.Join(*f.Stack, ", ") + " (outermost first)"
			}
			row("MCA "+f.Name+" stack", stack)
		}
	}
}

// renderParsable prints one colon-separated record per line; see
// docs/gompi_info.md for the record types.
func renderParsable(w io.Writer, r report) {
	rec := func(fields ...string) {
		for i, f := range fields {
			fields[i] = quoteField(f)
		}
		fmt.Fprintln(w, strings.Join(fields, ":"))
	}
	rec("package", "gompi", r.Version)
	rec("version", "go", r.GoVersion)
	rec("version", "model", r.ModelVersion)
	for _, f := range r.Frameworks {
		rec("framework", f.Name, "api", f.API)
		rec("framework", f.Name, "description", f.Description)
		if f.Stack != nil {
			rec(append([]string{"framework", f.Name, "stack"}, *f.Stack...)...)
		}
		for _, c := range f.Components {
			rec("mca", f.Name, c.Name, "version", "component", orUnknown(c.Version))
			rec("mca", f.Name, c.Name, "version", "model", orUnknown(c.Model))
			rec("mca", f.Name, c.Name, "version", "api", orUnknown(c.API))
			rec("mca", f.Name, c.Name, "origin", c.Origin)
			rec("mca", f.Name, c.Name, "status", c.Status)
			if c.RefusedBy != "" {
				rec("mca", f.Name, c.Name, "refused", c.RefusedBy)
			}
		}
	}
	for _, p := range r.Parameters {
		pre := []string{"mca", p.Framework, p.Component, "param", p.Name}
		field := func(fields ...string) { rec(append(append([]string{}, pre...), fields...)...) }
		field("value", p.Value)
		field("source", p.Source)
		field("default", p.Default)
		field("type", p.Type)
		field("level", strconv.Itoa(p.Level))
		field("help", p.Help)
		field("allowed", p.Allowed)
		for _, e := range p.Values {
			field("enumerator", e.Name, e.Help)
		}
		for _, s := range p.Synonyms {
			field("synonym", s)
		}
		for _, s := range p.Deprecated {
			field("deprecated_name", s)
		}
	}
}

// orUnknown is a version for the parsable output: "unknown" when there is none.
func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

// quoteField quotes a field that would break the record: one holding a
// colon, a quote, a newline or leading or trailing space.
func quoteField(s string) string {
	if strings.ContainsAny(s, ":\"\n\r") || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return s
}

func renderJSON(w io.Writer, r report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
