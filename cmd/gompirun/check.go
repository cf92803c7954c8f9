package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	_ "github.com/gompi/gompi/components/all" // the components a rank links
	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// checkParams resolves the parameters a rank of the program argv started
// with env will read (its --tune and parameter files, GOMPI_MCA_
// variables and --mca values), as a rank does: with the same component
// model, gompi's built-in components and the plugins on the component
// path. Warnings are logged once, here; a problem is returned and no rank
// need start. The process environment must already hold env's GOMPI_MCA_
// variables (see withExports): the parameter system reads them from there.
//
// A program may link components gompirun does not, and lack some it
// has. So when a selection names a component gompirun does not know, the
// program itself is asked what it registers (see askProgram), and the
// names are judged by its answer and the plugins on the component path.
// A program that cannot be asked leaves such names to its ranks.
// It returns the profiling tools the ranks will run whose parts gompirun
// merges (see profTools).
func checkParams(ctx context.Context, env, argv []string, log hclog.Logger) (tools []string, err error) {
	in, err := params.EnvInputs(env)
	if err != nil {
		return nil, err
	}
	in.Checked = false // the ranks' mark: here the warnings are reported
	sys := mca.New(mca.Options{Logger: log, Params: pmpi.RegisterParams})
	defer sys.Close()
	err = sys.Resolve(in)
	if err == nil {
		return profTools(sys, sys.Snapshot()), nil
	}
	if !errors.Is(err, mca.ErrUnknownComponent) && !errors.Is(err, mca.ErrSelection) {
		return nil, err
	}
	// Resolve stops at the first bad value; with none, the errors are the
	// frameworks' selections. Those naming unknown components, or leaving
	// none, are judged again here, each framework on its own.
	snap, perr := sys.Params().Resolve(in)
	if perr != nil {
		return nil, err
	}
	var errs []error
	for _, e := range frameworkErrors(err) {
		if !errors.Is(e, mca.ErrUnknownComponent) && !errors.Is(e, mca.ErrSelection) {
			errs = append(errs, e)
		}
	}
	prog := askProgram(ctx, argv, env, log)
	for _, f := range sys.Frameworks() {
		v, _ := snap.Lookup(f.Name())
		sel, serr := mca.ParseSelection(v.Raw)
		if serr != nil {
			continue // reported among errs
		}
		// The program's own components, and the plugins.
		known := slices.Clone(prog.linked[f.Name()])
		for _, c := range f.Components() {
			if c.Origin != mca.OriginStatic || prog.own {
				known = append(known, c.Name)
			}
		}
		slices.Sort(known)
		known = slices.Compact(known)
		if _, cerr := sel.Check(f.Name(), v, known); cerr != nil && prog.known {
			errs = append(errs, cerr)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !prog.known {
		log.Debug("selections name components gompirun could not ask the program about; the ranks will check them")
	}
	return profTools(sys, snap), nil
}

// profTools is the profiling tools the prof selection runs that submit
// parts for gompirun to merge: those it has a merger for, and that a
// negative priority does not disable. gompirun says so when a tool's
// report has no part at all.
func profTools(sys *mca.System, snap *params.Snapshot) []string {
	v, _ := snap.Lookup(prof.Name)
	sel, err := mca.ParseSelection(v.Raw)
	if err != nil || len(sel.Names) == 0 {
		return nil // an opt-in framework: no tool
	}
	names := sel.Names
	if sel.Exclude {
		names = nil
		if f, err := sys.Framework(prof.Name); err == nil {
			for _, c := range f.Components() {
				if !slices.Contains(sel.Names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	var tools []string
	for _, name := range names {
		if prof.MergerFor(name) != nil && !mca.Disabled(snap, prof.Name, name) {
			tools = append(tools, name)
		}
	}
	return tools
}

// onceWriter drops lines written before: the parameter check runs once
// per app context, and what they share is said once.
type onceWriter struct {
	w    io.Writer
	seen map[string]bool
}

func (o *onceWriter) Write(p []byte) (int, error) {
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if o.seen[string(p)] {
		return len(p), nil
	}
	o.seen[string(p)] = true
	return o.w.Write(p)
}

// frameworkErrors splits the error of mca.System.Resolve, "mca: " and the
// frameworks' errors joined, into those errors.
func frameworkErrors(err error) []error {
	if multi, ok := errors.Unwrap(err).(interface{ Unwrap() []error }); ok {
		return multi.Unwrap()
	}
	return []error{err}
}

// withExports runs check with an app context's -x exports set in
// gompirun's own environment, where the parameter system reads
// GOMPI_MCA_ variables, and restores the environment afterwards.
func withExports(exports []string, check func() error) error {
	type saved struct {
		name, value string
		set         bool
	}
	var undo []saved
	defer func() {
		for _, s := range slices.Backward(undo) {
			if s.set {
				os.Setenv(s.name, s.value)
			} else {
				os.Unsetenv(s.name)
			}
		}
	}()
	for _, kv := range exports {
		name, value, _ := strings.Cut(kv, "=")
		old, set := os.LookupEnv(name)
		undo = append(undo, saved{name, old, set})
		if err := os.Setenv(name, value); err != nil {
			return fmt.Errorf("-x %s: %w", name, err)
		}
	}
	return check()
}

// printProblems writes a failed check, one problem a line; where names
// the app context of an MPMD job.
func printProblems(w io.Writer, where string, err error) {
	fmt.Fprintf(w, "gompirun: bad MCA parameters%s; no rank was started:\n", where)
	for _, line := range strings.Split(strings.TrimPrefix(err.Error(), "mca: "), "\n") {
		fmt.Fprintln(w, "  "+line)
	}
}
