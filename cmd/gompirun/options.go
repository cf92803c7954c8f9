package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gompi/gompi/internal/cli"
	"github.com/gompi/gompi/internal/launcher"
	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/params"
)

const usageLine = "gompirun -np N [options] program [args...] [: -np N [-x VAR]... program [args...]]..."

// usageTemplate and helpTemplate put the usage line and the options
// first, the explanations (longHelp) after them.
const (
	usageTemplate = `Usage:
  {{.UseLine}}

Options:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}
`
	helpTemplate = `{{.UsageString}}
{{.Long}}
`
)

const longHelp = `gompirun starts the ranks of one gompi job, on this host or on the hosts
--host or --hostfile name (reached over ssh, or --mca plm_rsh_agent),
serves their runtime, forwards their output and stops every rank as soon
as one fails (one that fails after Finalize stops nobody).
Options end at the program name (or at "--"); what follows belongs to the
program. Single-dash long options (-np 4, -mca btl tcp) work as well.

MPMD: "gompirun -np 1 ./a : -np 3 ./b x" runs one rank of ./a and three of
./b with argument x in one job. Each app context between ":" has its own
-np, -x, program and arguments; ranks are numbered in order (./a is rank
0, ./b ranks 1 to 3), and each rank's context is its MPI_APPNUM
(mpi.AppNum). The other options concern the whole job and go before the
first program. A lone ":" always separates contexts.

--bind-to: auto (the default) gives each rank its share of the CPUs
gompirun may use when the ranks fit, and pins rank r to the (r mod n)-th
CPU when they do not; core always pins; none leaves placement to the kernel.

SIGINT, SIGTERM and SIGHUP are forwarded to the ranks, once, and stop the
job: a rank that catches the signal has 10 s to finalize before SIGKILL, and
a second signal kills at once; SIGQUIT prints what every rank waits for and
the job goes on.

Exit status: 0 when every rank succeeded; else that of the root cause (the
rank's exit status, 128+signal if it was killed, its Abort code, or 1 if it
exited without calling Finalize); 124 when --timeout expired; 128+signal
when gompirun itself got SIGINT, SIGTERM or SIGHUP; 1 when the job could
not be started.

The ranks' environment, failures, state reports and binding are explained
in docs/gompirun.md.`

// options is a parsed command line.
type options struct {
	apps          []appOptions // one per app context, in order
	oversubscribe bool
	mca           []params.Setting
	tune          []string // absolute paths
	output        launcher.OutputOptions
	timeout       time.Duration
	reportState   bool          // --report-state-on-timeout
	stateWait     time.Duration // --report-state-wait
	stacks        bool          // --get-stack-traces
	bind          node.Bind
	verbose       int
	hostOpts      hostOptions
	wdir          string // --wdir, absolute; "" is gompirun's directory
}

// appOptions is one app context: "-np N [-x VAR]... program args".
type appOptions struct {
	np      int
	program string
	args    []string
	exports []string // NAME=value, in order
	unset   []string // -x NAME given for a NAME gompirun's environment lacks
}

// np is the number of ranks of the job, over every app context.
func (o *options) np() int {
	n := 0
	for _, a := range o.apps {
		n += a.np
	}
	return n
}

// contextSep separates the app contexts of an MPMD command line, as in
// Open MPI: gompirun -np 1 ./a : -np 3 ./b.
const contextSep = ":"

// host is what option checking needs to know about the machine and the
// environment, so tests can supply their own.
type host struct {
	lookupEnv func(string) (string, bool)
	numCPU    int
	isParam   func(string) bool // whether a name is an MCA parameter; nil: not known
}

// parseArgs parses gompirun's command line. It returns nil options and no
// error when --help or --version was answered on stdout.
func parseArgs(args []string, h host, stdout io.Writer) (*options, error) {
	segs := splitContexts(args)
	var (
		o         options
		first     appOptions
		tune      []string
		exports   []string
		bindTo    = choice{value: "auto", values: "auto|core|none"}
		timeout   int
		ran       bool
		remaining []string
	)
	cmd := &cobra.Command{
		Use:           usageLine,
		Short:         "Run a gompi job of N ranks on this host or on several",
		Long:          longHelp,
		Version:       version.Version,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		// The usage line already says where options go.
		DisableFlagsInUseLine: true,
		RunE: func(_ *cobra.Command, args []string) error {
			ran, remaining = true, args
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stdout)
	cmd.SetFlagErrorFunc(cli.FlagError)
	cmd.SetUsageTemplate(usageTemplate)
	cmd.SetHelpTemplate(helpTemplate)
	fl := cmd.Flags()
	fl.SetInterspersed(false) // the program's own flags are not ours
	fl.SortFlags = false
	fl.IntVarP(&first.np, "np", "n", 0, "start `N` ranks of the program (1 or more; required unless a host list or -N fills the slots)")
	fl.IntVar(&first.np, "n", 0, "same as --np")
	_ = fl.MarkHidden("n")
	fl.StringArrayVarP(&exports, "export", "x", nil, "export `VAR[=VALUE]` to the program's ranks; VAR alone copies gompirun's value, if it has one (repeatable)")
	fl.BoolVar(&o.oversubscribe, "oversubscribe", false, "allow more ranks than CPUs (than slots, on a host list)")
	fl.StringVarP(&o.hostOpts.hosts, "host", "H", "", "run on `HOST[:SLOTS],...` (this host's name runs ranks here; a host named twice adds its slots)")
	fl.StringVar(&o.hostOpts.hostfile, "hostfile", "", "run on the hosts of `FILE` (\"host slots=N max_slots=M\" lines, user@host, # comments)")
	fl.StringVar(&o.hostOpts.hostfile, "machinefile", "", "same as --hostfile")
	_ = fl.MarkHidden("machinefile")
	fl.StringVar(&o.hostOpts.mapBy, "map-by", "", "place ranks by `slot|node|ppr:N:node` (default slot: fill each host in turn)")
	fl.StringVar(&o.hostOpts.rankBy, "rank-by", "", "number the placed ranks by `slot|node` (default: as mapped)")
	fl.IntVarP(&o.hostOpts.perNode, "npernode", "N", 0, "start `N` ranks on every host (as --map-by ppr:N:node)")
	fl.BoolVar(&o.hostOpts.displayMap, "display-map", false, "print each rank's host, local rank and CPUs before starting")
	fl.StringVar(&o.hostOpts.prefix, "prefix", "", "gompirun and gompi-daemon are in `DIR`/bin on the other hosts (default: the directory gompirun has here)")
	fl.String("mca", "", "set an MCA parameter for every rank: `NAME VALUE` (repeatable)")
	fl.StringArrayVar(&tune, "tune", nil, "read MCA parameters from `FILE` in every rank (repeatable; FILE,FILE also works)")
	fl.BoolVar(&o.output.Tag, "tag-output", false, "prefix each output line with [jobid,rank]<stdout>: or <stderr>:")
	fl.BoolVar(&o.output.Timestamp, "timestamp-output", false, "prefix each output line with the time it was printed")
	fl.StringVar(&o.output.Dir, "output-filename", "", "also write rank N's output to `DIR`/1/rank.N/stdout and stderr")
	fl.StringVar(&o.wdir, "wdir", "", "start the ranks in `DIR`, where a relative program path is found too (default: gompirun's directory)")
	fl.StringVar(&o.wdir, "wd", "", "same as --wdir")
	_ = fl.MarkHidden("wd")
	fl.IntVar(&timeout, "timeout", 0, "stop the job `SECONDS` after start, the launch included, and exit with status 124 (default $MPIEXEC_TIMEOUT, else none)")
	fl.BoolVar(&o.reportState, "report-state-on-timeout", false, "before --timeout stops the job, print what every rank waits for")
	fl.DurationVar(&o.stateWait, "report-state-wait", time.Second, "how long a state report waits for each rank's answer (`DURATION`, such as 1s or 30s; more on a host whose ranks are starved of CPU)")
	fl.BoolVar(&o.stacks, "get-stack-traces", false, "add every goroutine's stack of every rank to state reports")
	fl.Var(&bindTo, "bind-to", "which CPUs each rank may use (see below)")
	fl.CountVarP(&o.verbose, "verbose", "v", "log what gompirun does to stderr")
	fl.Bool("allow-run-as-root", false, "accepted as Open MPI's mpirun takes it; gompirun runs as root without it")
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()

	inContext := func(n int, err error) error {
		if len(segs) > 1 {
			return fmt.Errorf("app context %d: %w", n, err)
		}
		return err
	}
	pairs, rest, err := cli.ExtractPairs(fl, segs[0], cli.MCAFlag)
	if err != nil {
		return nil, inContext(1, err)
	}
	cmd.SetArgs(append([]string{}, rewriteSingleDash(fl, rest)...)) // non-nil: cobra reads os.Args for nil
	if err := cmd.Execute(); err != nil {
		return nil, inContext(1, fmt.Errorf("%w (see gompirun --help)", err))
	}
	if !ran { // --help or --version
		return nil, nil
	}

	if fl.Changed("mca") {
		return nil, errors.New("--mca takes a name and a value as two arguments: --mca NAME VALUE")
	}
	if o.mca, err = cli.Settings(pairs); err != nil {
		return nil, err
	}
	// An empty list, as from an unset variable ("--host $HOSTS"), must not
	// quietly run every rank here.
	for _, f := range []struct{ name, want string }{
		{"host", "hosts such as h1,h2:4"}, {"hostfile", "a file's path"}, {"machinefile", "a file's path"},
	} {
		if fl.Changed(f.name) && fl.Lookup(f.name).Value.String() == "" {
			return nil, fmt.Errorf("--%s is empty: want %s", f.name, f.want)
		}
	}
	if len(remaining) == 0 {
		if n := len(segs[0]); n >= 3 && len(pairs) > 0 {
			// "--mca NAME prog": the program became the value.
			if p := pairs[len(pairs)-1]; slices.Equal(segs[0][n-3:], []string{p.Flag, p.Name, p.Value}) {
				return nil, inContext(1, tookProgram(p, h.isParam))
			}
		}
		if len(segs) > 1 {
			return nil, inContext(1, emptyContext(segs[0]))
		}
		return nil, fmt.Errorf("no program given; usage: %s", usageLine)
	}
	first.program, first.args = remaining[0], remaining[1:]
	// Inside a Slurm allocation the ranks go to its nodes, as with mpirun.
	if nodes, ok := h.lookupEnv("SLURM_JOB_NODELIST"); ok && nodes != "" {
		o.hostOpts.slurmNodes = nodes
		o.hostOpts.slurmTasks, _ = h.lookupEnv("SLURM_TASKS_PER_NODE")
	}
	if fl.Changed("npernode") && o.hostOpts.perNode < 1 {
		return nil, fmt.Errorf("-N %d: want a positive number of ranks per node", o.hostOpts.perNode)
	}
	// On a host list, no -np fills its slots (or -N's count per host), as
	// mpirun does.
	fill := o.hostOpts.given() || fl.Changed("npernode") || strings.HasPrefix(o.hostOpts.mapBy, "ppr:")
	if !fl.Changed("np") && !fl.Changed("n") && !fill {
		return nil, inContext(1, errors.New("-np N is required: the number of ranks to start (1 or more)"))
	}
	if fl.Changed("np") || fl.Changed("n") || !fill {
		if first.np < 1 {
			return nil, inContext(1, fmt.Errorf("-np %d: the number of ranks must be 1 or more", first.np))
		}
	}
	if first.exports, first.unset, err = resolveExports(exports, h.lookupEnv); err != nil {
		return nil, inContext(1, err)
	}
	o.apps = append(o.apps, first)
	for i, seg := range segs[1:] {
		app, err := parseContext(seg, fl, h.lookupEnv)
		if err != nil {
			return nil, inContext(i+2, err)
		}
		o.apps = append(o.apps, app)
	}

	if np := o.np(); np > h.numCPU && !o.oversubscribe && !o.hostOpts.given() {
		what := fmt.Sprintf("-np %d", np)
		if len(o.apps) > 1 {
			what = fmt.Sprintf("%d ranks in all", np)
		}
		return nil, fmt.Errorf("%s: this host has only %d CPUs available; add --oversubscribe to run more ranks than CPUs", what, h.numCPU)
	}
	if o.tune, err = checkTuneFiles(tune); err != nil {
		return nil, err
	}
	switch strings.ToLower(bindTo.value) {
	case "auto":
		o.bind = node.BindAuto
	case "core":
		o.bind = node.BindCore
	case "none":
		o.bind = node.BindNone
	default:
		return nil, fmt.Errorf("--bind-to %q: allowed values are auto, core and none", bindTo.value)
	}
	if o.timeout, err = timeoutOption(fl.Changed("timeout"), timeout, h.lookupEnv); err != nil {
		return nil, err
	}
	if o.stateWait <= 0 || o.stateWait > time.Hour {
		return nil, fmt.Errorf("--report-state-wait %v: want a duration above 0 and at most 1h, such as 1s or 30s", o.stateWait)
	}
	if o.hostOpts.hostfile != "" {
		if o.hostOpts.hostfile, err = filepath.Abs(o.hostOpts.hostfile); err != nil {
			return nil, fmt.Errorf("--hostfile: %w", err)
		}
	}
	if fl.Changed("output-filename") {
		if o.output.Dir == "" {
			return nil, errors.New("--output-filename: the directory name is empty")
		}
		if o.output.Dir, err = filepath.Abs(o.output.Dir); err != nil {
			return nil, fmt.Errorf("--output-filename: %w", err)
		}
	}
	if fl.Changed("wdir") || fl.Changed("wd") {
		if o.wdir, err = workDir(o.wdir); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// workDir checks --wdir's directory and makes it absolute. It must exist
// here; on another host where it does not, the ranks start in the
// daemon's directory, as Open MPI's do.
func workDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("--wdir: the directory name is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--wdir %s: %w", dir, err)
	}
	switch st, err := os.Stat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--wdir %s: the directory does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("--wdir %s: %w", dir, err)
	case !st.IsDir():
		return "", fmt.Errorf("--wdir %s: not a directory", dir)
	}
	return abs, nil
}

// choice is a string option whose help shows its allowed values once, as
// the value's name (--bind-to auto|core|none); parseArgs checks the value.
type choice struct{ value, values string }

func (c *choice) String() string     { return c.value }
func (c *choice) Set(v string) error { c.value = v; return nil }
func (c *choice) Type() string       { return c.values }

// splitContexts splits a command line at every lone ":", as Open MPI
// does: a program cannot be given ":" as an argument.
func splitContexts(args []string) [][]string {
	segs := [][]string{{}}
	for _, a := range args {
		if a == contextSep {
			segs = append(segs, []string{})
			continue
		}
		segs[len(segs)-1] = append(segs[len(segs)-1], a)
	}
	return segs
}

// emptyContext explains an app context without a program.
func emptyContext(seg []string) error {
	if len(seg) == 0 {
		return errors.New("empty: each \":\" must be followed by -np N and a program")
	}
	return fmt.Errorf("no program after %q: an app context is \"-np N [-x VAR]... program [args]\"", strings.Join(seg, " "))
}

// parseContext parses an app context after the first: -np, -x, the
// program and its arguments. The job's options (those of the whole
// command line) belong before the first program; one given here is
// refused rather than applied to the whole job or to this context.
func parseContext(seg []string, job *pflag.FlagSet, lookupEnv func(string) (string, bool)) (appOptions, error) {
	var (
		app     appOptions
		exports []string
	)
	fs := pflag.NewFlagSet("app context", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(false)
	fs.IntVarP(&app.np, "np", "n", 0, "")
	fs.IntVar(&app.np, "n", 0, "")
	fs.StringArrayVarP(&exports, "export", "x", nil, "")
	args := rewriteSingleDash(job, seg)
	if err := refuseJobOptions(args, fs, job); err != nil {
		return appOptions{}, err
	}
	if err := fs.Parse(args); err != nil {
		return appOptions{}, err
	}
	if fs.NArg() == 0 {
		return appOptions{}, emptyContext(seg)
	}
	app.program, app.args = fs.Arg(0), fs.Args()[1:]
	if !fs.Changed("np") && !fs.Changed("n") {
		return appOptions{}, fmt.Errorf("-np N is required before %s: the number of its ranks (1 or more)", app.program)
	}
	if app.np < 1 {
		return appOptions{}, fmt.Errorf("-np %d: the number of ranks must be 1 or more", app.np)
	}
	var err error
	if app.exports, app.unset, err = resolveExports(exports, lookupEnv); err != nil {
		return appOptions{}, err
	}
	return app, nil
}

// refuseJobOptions fails on the first option of args, up to the program,
// that is one of the job's (in job) rather than an app context's (in fs).
func refuseJobOptions(args []string, fs, job *pflag.FlagSet) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return nil
		}
		var ours, jobs bool
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			ours, jobs = fs.Lookup(name) != nil, job.Lookup(name) != nil
		} else {
			ours, jobs = fs.ShorthandLookup(a[1:2]) != nil, job.ShorthandLookup(a[1:2]) != nil
		}
		if !ours && jobs {
			return fmt.Errorf("%s applies to the whole job: give it before the first program (after \":\" an app context takes only -np and -x)", a)
		}
		if !ours {
			return nil // pflag names the unknown flag
		}
		if takesValue(fs, a) {
			i++
		}
	}
	return nil
}

// tookProgram explains a command line whose last --mca pair took the
// program name as its value.
func tookProgram(p cli.Pair, isParam func(string) bool) error {
	msg := fmt.Sprintf("%s took %q as the value of %s, and no program is left to run", p.Flag, p.Value, p.Name)
	if isParam != nil && isParam(p.Name) {
		return fmt.Errorf("%s: the value of %s is missing; write %s %s VALUE %s", msg, p.Name, p.Flag, p.Name, p.Value)
	}
	return fmt.Errorf("%s: %s takes a name and a value, as in %s btl tcp,self", msg, p.Flag, p.Flag)
}

// rewriteSingleDash turns single-dash long options (-np, -tag-output) into
// their double-dash form, up to the program name. Single letters and
// shorthand clusters (-n 4, -vv) are left to pflag.
func rewriteSingleDash(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "--") && len(a) > 2 {
			if name, _, _ := strings.Cut(a[1:], "="); len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
		if takesValue(fs, a) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// takesValue reports whether flag argument a consumes the next argument.
func takesValue(fs *pflag.FlagSet, a string) bool {
	if name, ok := strings.CutPrefix(a, "--"); ok {
		f := fs.Lookup(name)
		return !strings.Contains(name, "=") && f != nil && f.NoOptDefVal == ""
	}
	// A shorthand cluster such as -vn: the first letter that takes a value
	// takes the rest of the cluster, or the next argument if nothing is left.
	for k := 1; k < len(a); k++ {
		f := fs.ShorthandLookup(a[k : k+1])
		if f == nil {
			return false
		}
		if f.NoOptDefVal == "" {
			return k == len(a)-1
		}
	}
	return false
}

// checkTuneFiles splits comma lists, checks that each file is a readable
// regular file and makes its path absolute (ranks may change directory).
func checkTuneFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		for _, name := range strings.Split(arg, ",") {
			if name == "" {
				return nil, fmt.Errorf("--tune %q: empty file name", arg)
			}
			fi, err := os.Stat(name)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("--tune %s: the file does not exist", name)
			case err != nil:
				return nil, fmt.Errorf("--tune %s: %w", name, err)
			case fi.IsDir():
				return nil, fmt.Errorf("--tune %s: is a directory; want a parameter file", name)
			}
			abs, err := filepath.Abs(name)
			if err != nil {
				return nil, fmt.Errorf("--tune %s: %w", name, err)
			}
			files = append(files, abs)
		}
	}
	return files, nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// resolveExports turns -x arguments into NAME=value entries. A bare NAME
// that gompirun's environment lacks is left out and returned in unset, as
// Open MPI's mpirun warns and goes on: scripts pass -x OMP_NUM_THREADS
// whether it is set or not.
func resolveExports(args []string, lookupEnv func(string) (string, bool)) (entries, unset []string, err error) {
	for _, arg := range args {
		name, value, hasValue := strings.Cut(arg, "=")
		if !envName.MatchString(name) {
			return nil, nil, fmt.Errorf("-x %q: %q is not a variable name (letters, digits and _, not starting with a digit); gompirun passes its whole environment already, so patterns are not needed", arg, name)
		}
		if !hasValue {
			v, ok := lookupEnv(name)
			if !ok {
				unset = append(unset, name)
				continue
			}
			value = v
		}
		entries = append(entries, name+"="+value)
	}
	return entries, unset, nil
}

// maxTimeout is the most seconds a time.Duration holds.
const maxTimeout = int64(math.MaxInt64 / time.Second)

// timeoutOption is --timeout if given, else $MPIEXEC_TIMEOUT as in Open
// MPI; 0 means no timeout.
func timeoutOption(given bool, secs int, lookupEnv func(string) (string, bool)) (time.Duration, error) {
	want := fmt.Sprintf("want a whole number of seconds from 0 (none) to %d", maxTimeout)
	if !given {
		s, ok := lookupEnv("MPIEXEC_TIMEOUT")
		if !ok || s == "" {
			return 0, nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > maxTimeout {
			return 0, fmt.Errorf("environment variable MPIEXEC_TIMEOUT=%q: %s", s, want)
		}
		return time.Duration(n) * time.Second, nil
	}
	if secs < 0 || int64(secs) > maxTimeout {
		return 0, fmt.Errorf("--timeout %d: %s", secs, want)
	}
	return time.Duration(secs) * time.Second, nil
}
