// Command gompi-bench-compare runs gompi-bench and its C twins against Open
// MPI and MPICH on this machine and reports them side by side; make
// bench-compare runs it from the repository's root after make build.
//
//	gompi-bench-compare [-quick] [-reps N] [-only latency,bw,across] [-across-rounds N]
//
// It installs Open MPI (and MPICH, where it installs beside it) from
// Debian's packages if missing, builds bench/c into bench/build against
// each and against gompi's C library (-capi-lib, the gompi C side), runs
// the sides in turn, then measures the three across simulated hosts
// (TestMeasureAcrossHosts, run with go test; where no hosts can be built,
// the report says so), prints the medians, rewrites the generated summary
// in docs/performance.md and the per-plan tables in
// docs/performance-tables.md, and draws docs/perf-*.svg. With -only across
// it rewrites the comparison across hosts alone in both pages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gompi/gompi/bench/compare"
	"github.com/gompi/gompi/internal/version"
)

type options struct {
	quick   bool
	reps    int
	bin     string
	src     string
	build   string
	doc     string
	tables  string
	plots   string
	install bool
	timeout time.Duration
	only    string
	command string
	noMPICH bool
	// gompi's C library and header, which the gompi C side builds
	// bench/c with; "" leaves that side out.
	gompicc   string
	writeDocs bool
	// The comparison across simulated hosts: its rounds, and the go
	// command that runs it.
	acrossRounds int
	goCmd        string
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gompi-bench-compare:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gompi-bench-compare:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("gompi-bench-compare", flag.ContinueOnError)
	fs.BoolVar(&o.quick, "quick", false, "fewer sizes, iterations and repetitions: about thirteen minutes, seven of them the cold collectives")
	fs.IntVar(&o.reps, "reps", 0, "repetitions of every measurement on every side (default 5, quick 3)")
	fs.StringVar(&o.bin, "bin", "bin", "directory of gompirun and gompi-bench (make build)")
	fs.StringVar(&o.src, "src", "bench/c", "directory of the C programs")
	fs.StringVar(&o.build, "build", "bench/build", "where the C programs are built")
	fs.StringVar(&o.doc, "doc", "docs/performance.md", "the page whose generated section, the summary, is rewritten")
	fs.StringVar(&o.tables, "tables", "docs/performance-tables.md", "the page of every plan's table, rewritten whole")
	fs.StringVar(&o.plots, "plots", "docs", "where the SVG plots go")
	fs.BoolVar(&o.writeDocs, "write", true, "rewrite the summary, the tables and the plots (false: print only)")
	fs.BoolVar(&o.install, "install", true, "install missing libraries with apt-get")
	fs.BoolVar(&o.noMPICH, "no-mpich", false, "leave MPICH out")
	fs.StringVar(&o.gompicc, "gompicc", "bin/gompicc", "gompi's C compiler wrapper, beside its C library (make build); \"\" leaves the gompi C side out")
	fs.DurationVar(&o.timeout, "timeout", 0, "limit for one run of one measurement (default 3m, quick 1m)")
	fs.StringVar(&o.only, "only", "", "run only these measurements, comma-separated (latency,ddt,bw,bibw,multi-lat,incast,ring,ring-8,ring-16,launch; "+
		"barrier,bcast,reduce,allreduce,allgather,alltoall, or one rank count of them: allreduce-8; "+
		"cold: every collective's first calls, or one: allreduce-8-cold20; "+
		"neighbor: neighbor-allgather and neighbor-alltoall at every rank count, or one: neighbor-alltoall-4; "+
		"nbc: iallreduce, ibcast and ialltoall, pure latency and overlap, or one: ibcast-2, ibcast-2-overlap; "+
		"across: the comparison across simulated hosts)")
	fs.IntVar(&o.acrossRounds, "across-rounds", 0, "rounds of the comparison across simulated hosts (default 7, quick 3)")
	fs.StringVar(&o.goCmd, "go", "go", "the go command, which runs the comparison across hosts (go test ./test/multihost)")
	fs.StringVar(&o.command, "command", "", "how the run was started, for the page (default: this command line)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.reps == 0 {
		o.reps = map[bool]int{false: 5, true: 3}[o.quick]
	}
	if o.acrossRounds == 0 {
		o.acrossRounds = map[bool]int{false: 7, true: 3}[o.quick]
	}
	if o.acrossRounds < 1 {
		return o, fmt.Errorf("-across-rounds %d: want 1 or more", o.acrossRounds)
	}
	if o.timeout == 0 {
		o.timeout = map[bool]time.Duration{false: 3 * time.Minute, true: time.Minute}[o.quick]
	}
	if filepath.Clean(o.tables) == filepath.Clean(o.doc) {
		return o, fmt.Errorf("-tables %s: the same page as -doc; the tables want a page of their own", o.tables)
	}
	if o.reps < 1 {
		return o, fmt.Errorf("-reps %d: want 1 or more", o.reps)
	}
	if o.command == "" {
		o.command = strings.Join(append([]string{filepath.Join(o.bin, "gompi-bench-compare")}, args...), " ")
	}
	return o, nil
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	started := time.Now()
	paths := compare.Paths{
		Gompirun: filepath.Join(o.bin, "gompirun"),
		Bench:    filepath.Join(o.bin, "gompi-bench"),
		Info:     filepath.Join(o.bin, "gompi_info"),
		Build:    o.build,
	}
	if err := checkInputs(o, paths); err != nil {
		return err
	}
	plans, across, err := selectPlans(o)
	if err != nil {
		return err
	}
	goVersion, err := compare.GoVersion(paths.Bench)
	if err != nil {
		return err
	}
	btls, err := compare.Components(ctx, paths.Info, "btl")
	if err != nil {
		return err
	}
	var notes []string
	gompiSM, why := compare.Usable(btls, "btl", "sm")
	if !gompiSM {
		note := "gompi sm left out: " + why
		fmt.Fprintln(stderr, note)
		notes = append(notes, note)
	}
	env := runEnv()
	in := &compare.Installer{Allowed: o.install, Log: stderr}
	ompi := compare.OpenMPI()
	if err := setUp(ctx, in, ompi, o, env); err != nil {
		return err
	}
	mpich := compare.MPICH()
	if o.noMPICH {
		mpich = nil
	} else if err := setUp(ctx, in, mpich, o, env); err != nil {
		note := "MPICH left out: " + firstLine(err.Error())
		fmt.Fprintf(stderr, "%s\n(full error: %v)\n", note, err)
		notes, mpich = append(notes, note), nil
	}
	var gompiC *compare.Library
	switch {
	case o.gompicc == "":
		notes = append(notes, "gompi C left out: -gompicc \"\"")
	case !gompiSM:
		notes = append(notes, "gompi C left out: it runs over gompi's sm")
	default:
		if gompiC, err = setUpGompiC(ctx, o, paths, env); err != nil {
			note := "gompi C left out: " + firstLine(err.Error())
			fmt.Fprintf(stderr, "%s\n(full error: %v)\n", note, err)
			notes, gompiC = append(notes, note), nil
		}
	}
	versions := []string{fmt.Sprintf("gompi %s built with %s", version.Version, goVersion), ompi.Describe()}
	if mpich != nil {
		versions = append(versions, mpich.Describe())
	}

	machine := compare.ThisMachine()
	machine.Copy = compare.CopyBandwidth()
	res, err := compare.Run(ctx, compare.Config{
		Plans: plans, Sides: compare.Sides(ompi, mpich, gompiC, gompiSM), Paths: paths, Reps: o.reps,
		Timeout: o.timeout, Env: env, Log: stderr, Crossing: compare.LineCrossing,
	})
	if err != nil {
		return err
	}
	rep := &compare.Report{Result: res, Command: o.command, Started: started, Machine: machine,
		Versions: versions, Notes: notes, Verdicts: res.Check(compare.Goals(), machine.Copy)}
	// A failed measurement across hosts is reported, with what was
	// measured on this host, before the run fails.
	var acrossErr error
	if across {
		cfg := compare.AcrossConfig{Go: o.goCmd, Rounds: o.acrossRounds, Timeout: compare.AcrossTimeout(o.acrossRounds), Env: env, Log: stderr}
		if o.noMPICH {
			cfg.Only = "^(gompi|Open MPI) "
		}
		rep.Across, acrossErr = compare.MeasureAcross(ctx, cfg)
		if rep.Across == nil {
			return acrossErr
		}
		if rep.Across.Results == nil {
			fmt.Fprintf(stderr, "across simulated hosts: not measured: %s\n", rep.Across.Absent)
		}
	}
	if o.writeDocs {
		if rep.PlotFiles, err = res.Plot(o.plots); err != nil {
			return err
		}
	}
	rep.Took = time.Since(started)
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s in all.\n", rep.Took.Round(time.Second))
	if !o.writeDocs {
		return acrossErr
	}
	if err := writePages(o, rep); err != nil {
		return errors.Join(err, acrossErr)
	}
	wrote := append([]string{o.doc, o.tables}, prefix(o.plots, rep.PlotFiles)...)
	fmt.Fprintf(stdout, "Wrote %s and %s.\n", strings.Join(wrote[:len(wrote)-1], ", "), wrote[len(wrote)-1])
	return acrossErr
}

// writePages writes the tables' page and the summary in the performance
// page, each linking to the other.
func writePages(o options, rep *compare.Report) error {
	toTables, err := relLink(o.doc, o.tables)
	if err != nil {
		return err
	}
	toDoc, err := relLink(o.tables, o.doc)
	if err != nil {
		return err
	}
	if len(rep.Plans) == 0 && rep.Across != nil {
		return rep.UpdateAcross(o.doc, o.tables, toTables, toDoc)
	}
	if err := os.WriteFile(o.tables, []byte(rep.Tables(toDoc)), 0o644); err != nil {
		return fmt.Errorf("writing the tables: %w", err)
	}
	return compare.UpdateDoc(o.doc, rep.Summary(toTables))
}

// relLink is the link from the page from to the page to.
func relLink(from, to string) (string, error) {
	rel, err := filepath.Rel(filepath.Dir(from), to)
	if err != nil {
		return "", fmt.Errorf("linking %s to %s: %w", from, to, err)
	}
	return filepath.ToSlash(rel), nil
}

// checkInputs fails early, naming what is missing.
func checkInputs(o options, p compare.Paths) error {
	var errs []error
	for _, f := range []string{p.Gompirun, p.Bench, p.Info} {
		if _, err := exec.LookPath(f); err != nil {
			errs = append(errs, fmt.Errorf("%s not found: run make build first (from the repository's root)", f))
		}
	}
	for _, c := range compare.Programs {
		if _, err := os.Stat(filepath.Join(o.src, c+".c")); err != nil {
			errs = append(errs, fmt.Errorf("the C programs: %w (run from the repository's root)", err))
			break
		}
	}
	if o.writeDocs {
		if _, err := os.Stat(o.doc); err != nil {
			errs = append(errs, fmt.Errorf("the performance page: %w", err))
		}
		if _, err := os.Stat(filepath.Dir(o.tables)); err != nil {
			errs = append(errs, fmt.Errorf("the tables' page: %w", err))
		}
	}
	return errors.Join(errs...)
}

// selectPlans picks -only's plans in the run's order, and says whether
// the comparison across hosts runs; a name picks every plan of that
// measurement (ring: ring-8 and ring-16), a key just one, a group every
// plan in it ("cold", "neighbor", "nbc"), "across" the comparison across hosts.
// Without -only, everything runs.
func selectPlans(o options) ([]compare.Plan, bool, error) {
	all := compare.Plans(o.quick)
	if o.only == "" {
		return all, true, nil
	}
	known := []string{"across"}
	for _, p := range all {
		if p.Group != "" && !slices.Contains(known, p.Group) {
			known = append(known, p.Group)
		}
		if !slices.Contains(known, p.Name) {
			known = append(known, p.Name)
		}
		if p.Key() != p.Name {
			known = append(known, p.Key())
		}
	}
	want := map[string]bool{}
	for _, name := range strings.Split(o.only, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(known, name) {
			return nil, false, fmt.Errorf("-only: no measurement %q in this run (%s)", name, strings.Join(known, ", "))
		}
		want[name] = true
	}
	var out []compare.Plan
	for _, p := range all {
		if want[p.Name] || want[p.Key()] || want[p.Group] {
			out = append(out, p)
		}
	}
	return out, want["across"], nil
}

// setUp installs a library if needed, builds the C programs against it
// and checks that a 2-rank job runs.
func setUp(ctx context.Context, in *compare.Installer, lib *compare.Library, o options, env []string) error {
	if err := in.Ensure(ctx, lib); err != nil {
		return err
	}
	if err := compare.Build(ctx, lib, o.src, o.build); err != nil {
		return err
	}
	return compare.Smoke(ctx, lib, o.build, env)
}

// setUpGompiC builds the C programs against gompi's C library and checks
// that a 2-rank job runs.
func setUpGompiC(ctx context.Context, o options, paths compare.Paths, env []string) (*compare.Library, error) {
	lib, err := compare.GompiC(paths.Gompirun, o.gompicc)
	if err != nil {
		return nil, err
	}
	if err := compare.Build(ctx, lib, o.src, o.build); err != nil {
		return nil, err
	}
	return lib, compare.Smoke(ctx, lib, o.build, env)
}

// runEnv lets Open MPI run as root, as it does here.
func runEnv() []string {
	env := os.Environ()
	if os.Geteuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return env
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func prefix(dir string, files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f)
	}
	return out
}
