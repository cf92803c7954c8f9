// Package cli holds command-line helpers shared by gompi's commands.
package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/params"
)

// Pair is one "<flag> NAME VALUE" triple from a command line.
type Pair struct {
	Flag, Name, Value string
}

// PairFlag is a flag that takes two values, and what they are, for the
// error when they are missing: "--param needs a framework and a component,
// as in --param btl tcp".
type PairFlag struct {
	Names   []string // the ways it is written: "--mca", "-mca"
	Takes   string   // "a name and a value"
	Example string   // "btl tcp,self"
}

// MCAFlag is --mca (also -mca): a parameter's name and its value.
var MCAFlag = PairFlag{Names: []string{"--mca", "-mca"}, Takes: "a name and a value", Example: "btl tcp,self"}

// ExtractPairs removes every "<flag> A B" triple whose flag is one of
// flags from args and returns the pairs in order. pflag cannot express a
// flag with two values, so this runs before it. Scanning stops at "--"
// and at the first argument that is neither a flag nor a flag's value:
// there the user's program and its own flags begin. fs tells which flags
// take a value.
func ExtractPairs(fs *pflag.FlagSet, args []string, flags ...PairFlag) (pairs []Pair, rest []string, err error) {
	isPair := map[string]*PairFlag{}
	for i := range flags {
		for _, n := range flags[i].Names {
			isPair[n] = &flags[i]
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case isPair[a] != nil:
			if i+2 >= len(args) {
				f := isPair[a]
				return nil, nil, fmt.Errorf("%s needs %s, as in %s %s", a, f.Takes, a, f.Example)
			}
			pairs = append(pairs, Pair{Flag: a, Name: args[i+1], Value: args[i+2]})
			i += 2
		case a == "--" || !strings.HasPrefix(a, "-") || a == "-":
			return pairs, append(rest, args[i:]...), nil
		default:
			rest = append(rest, a)
			if takesValue(fs, a) && i+1 < len(args) {
				rest = append(rest, args[i+1])
				i++
			}
		}
	}
	return pairs, rest, nil
}

// takesValue reports whether a flag argument without "=value" consumes the
// next argument.
func takesValue(fs *pflag.FlagSet, arg string) bool {
	if strings.Contains(arg, "=") {
		return false
	}
	var f *pflag.Flag
	if strings.HasPrefix(arg, "--") {
		f = fs.Lookup(arg[2:])
	} else if len(arg) == 2 {
		f = fs.ShorthandLookup(arg[1:])
	} else {
		f = fs.Lookup(arg[1:]) // single-dash long form, as in -np 4
	}
	return f != nil && f.NoOptDefVal == ""
}

// Settings turns --mca pairs into parameter settings. An empty name is an
// error, and so is the same name twice with different values: which one
// was meant cannot be known.
func Settings(pairs []Pair) ([]params.Setting, error) {
	seen := map[string]string{}
	var out []params.Setting
	for _, p := range pairs {
		if strings.TrimSpace(p.Name) == "" {
			return nil, fmt.Errorf("%s %q %q: the parameter name is empty; write %s NAME VALUE, as in %s %s",
				p.Flag, p.Name, p.Value, p.Flag, p.Flag, MCAFlag.Example)
		}
		if prev, ok := seen[p.Name]; ok {
			if prev != p.Value {
				return nil, fmt.Errorf("%s %s given twice with different values (%q and %q)", p.Flag, p.Name, prev, p.Value)
			}
			continue
		}
		seen[p.Name] = p.Value
		out = append(out, params.Setting{Name: p.Name, Value: p.Value})
	}
	return out, nil
}
