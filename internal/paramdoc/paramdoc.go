// Package paramdoc renders docs/parameters.md from the parameter registry,
// so the reference can never drift from the code.
package paramdoc

import (
	"fmt"
	"io"
	"strings"

	"github.com/gompi/gompi/params"
)

// Write renders every definition as Markdown, grouped by framework and
// component in the registry's order.
func Write(w io.Writer, defs []params.Def) error {
	var b strings.Builder
	b.WriteString(`# MCA parameters

<!-- Generated from the parameter registry by "make docs"; do not edit. -->

Every parameter below can be set, highest precedence first, in:

1. the administrator's override file ` + "`<prefix>/etc/gompi-mca-params-override.conf`" + `, which locks values;
2. the command line: ` + "`gompirun --mca NAME VALUE`" + ` (also ` + "`gompi_info --mca`" + `);
3. the environment: ` + "`GOMPI_MCA_NAME=VALUE`" + ` (an empty value is a value);
4. parameter files, ` + "`NAME = VALUE`" + ` lines with ` + "`#`" + ` comments: the files given with ` + "`gompirun --tune`" + `,
   then those listed in ` + "`mca_base_param_files`" + `, then ` + "`~/.gompi/mca-params.conf`" + `, then
   ` + "`<prefix>/etc/gompi-mca-params.conf`" + `;
5. the default.

` + "`gompi_info --param all all --level 9`" + ` shows each value and where it came from. Levels 1-3
are for users, 4-6 for tuners, 7-9 for developers. A C tool reads the same values through MPI's
tools interface, as control variables of the same names ([c.md](c.md)).
`)
	lastFW, lastComp := "", ""
	for _, d := range defs {
		if d.Framework != lastFW {
			fmt.Fprintf(&b, "\n## %s\n", title(d.Framework))
			lastFW, lastComp = d.Framework, ""
		}
		if d.Component != lastComp {
			fmt.Fprintf(&b, "\n### %s %s\n\n| Name | Type | Default | Level | Description |\n|---|---|---|---|---|\n",
				d.Framework, d.Component)
			lastComp = d.Component
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %s |\n", d.Name, d.Kind, code(d.Default), d.Level, cell(describe(d)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func title(framework string) string {
	if framework == "mca" {
		return "The component model (mca)"
	}
	return "Framework " + framework
}

// describe is the help text with the accepted values and other names.
func describe(d params.Def) string {
	s := strings.TrimSpace(d.Help)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	s += " Valid values: " + d.Allowed() + "."
	if len(d.Synonyms) > 0 {
		s += " Synonyms: " + strings.Join(d.Synonyms, ", ") + "."
	}
	if len(d.Deprecated) > 0 {
		s += " Deprecated names: " + strings.Join(d.Deprecated, ", ") + "."
	}
	return s
}

func code(s string) string {
	if s == "" {
		return "(empty)"
	}
	return "`" + s + "`"
}

// cell escapes what would break a Markdown table row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
