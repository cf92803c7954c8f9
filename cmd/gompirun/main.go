// Command gompirun runs a gompi job: N copies of a program on this host,
// with the job runtime they connect to, output forwarding and supervision.
// See gompirun --help.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/internal/hostmap"
	"github.com/gompi/gompi/internal/launcher"
	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/internal/reaper"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

func main() {
	// Without gompi-reaper beside it, gompirun re-executes itself as the
	// job's reaper; see package reaper.
	if spec, ok := os.LookupEnv(reaper.EnvVar); ok {
		if err := reaper.Run(spec); err != nil {
			fmt.Fprintln(os.Stderr, "gompirun: reaper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// On the other hosts of a job, without gompi-daemon beside it, gompirun
	// runs as the daemon that starts that host's ranks; see package node.
	if len(os.Args) == 2 && os.Args[1] == node.DaemonFlag {
		os.Exit(node.Main())
	}
	// Catch signals from the start: before the job runs they end gompirun
	// (see beforeLaunch).
	sigs := make(chan os.Signal, 4)
	// SIGHUP (a closed terminal or ssh session) stops the job like SIGTERM.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// SIGQUIT (Ctrl-\) asks for a report of what the ranks wait for, as it
	// asks a JVM for its threads' stacks; mpirun forwards SIGUSR1 and SIGUSR2
	// to the ranks, so those stay free for the program.
	quits := make(chan os.Signal, 1)
	signal.Notify(quits, syscall.SIGQUIT)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, sigs, quits))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer, sigs, quits <-chan os.Signal) int {
	started := time.Now() // --timeout counts from here
	h := host{lookupEnv: os.LookupEnv, numCPU: runtime.NumCPU(), isParam: isParam}
	opt, err := parseArgs(args, h, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "gompirun:", err)
		return 1
	}
	if opt == nil {
		return 0 // --help or --version
	}
	for _, a := range opt.apps {
		for _, name := range a.unset {
			fmt.Fprintf(stderr, "gompirun: warning: -x %s: %s is not set in gompirun's environment; %s's ranks start without it\n", name, name, a.program)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "gompirun: finding gompirun's own executable:", err)
		return 1
	}
	env := rankEnv(os.Environ(), opt, exe)
	logOut := launcher.NewLogOutput(stderr)
	log := newLog(opt.verbose, logOut)
	self, _ := os.Hostname()
	m, err := placement(opt, hostmap.Host{Name: self, Slots: h.numCPU})
	if err != nil {
		fmt.Fprintln(stderr, "gompirun:", err)
		return 1
	}
	hosts, here, err := applyPlacement(opt, m, isLocalHost)
	if err != nil {
		fmt.Fprintln(stderr, "gompirun:", err)
		return 1
	}
	// Every parameter source is checked once, here, before any rank starts.
	ctx, stop := beforeLaunch(sigs, started, opt.timeout)
	tools, ok := checkApps(ctx, opt, env, stderr)
	if sig := stop(); sig != nil {
		fmt.Fprintf(stderr, "gompirun: received %s before any rank started; exiting\n", node.SignalName(sig.(syscall.Signal)))
		return 128 + int(sig.(syscall.Signal))
	}
	if opt.timeout > 0 && time.Since(started) >= opt.timeout {
		fmt.Fprintf(stderr, "gompirun: job timed out after %d seconds, before any rank started\n", int64(opt.timeout/time.Second))
		return launcher.ExitTimeout
	}
	if !ok {
		return 1
	}
	apps := make([]node.App, len(opt.apps))
	for i, a := range opt.apps {
		apps[i] = node.App{NP: a.np, Program: a.program, Args: a.args, Env: a.exports}
	}
	cfg := launcher.Config{
		Apps:      apps,
		Env:       env,
		Bind:      opt.bind,
		Dir:       opt.wdir,
		ReaperExe: reaper.Exe(exe),
		Timeout:   opt.timeout,
		Started:   started,

		ReportStateOnTimeout: opt.reportState,
		StackTraces:          opt.stacks,
		StateAnswerWait:      opt.stateWait,
		StateRequests:        quits,
		Output:               opt.output,
		Stdin:                stdin,
		Stdout:               stdout,
		Stderr:               stderr,
		Signals:              sigs,
		Mergers:              mergerFor,
		Profiling:            tools,
		Log:                  log,
		LogOutput:            logOut,
	}
	if opt.hostOpts.displayMap {
		cfg.ShowMap = mapPrinter(stdout, m)
	}
	if opt.hostOpts.given() {
		cfg.Hosts, cfg.LocalHost = hosts, here
		if slices.ContainsFunc(hosts, func(h string) bool { return h != here }) {
			users := map[string]string{}
			for _, h := range m.Hosts {
				users[h.Name] = h.User
			}
			a, err := launchAgent(env, users, log)
			if err != nil {
				fmt.Fprintln(stderr, "gompirun: launching on other hosts:", err)
				return 1
			}
			defer a.close()
			cfg.Agent, cfg.Fanout, cfg.Daemon = a.command, a.fanout, daemonCommand(opt.hostOpts.prefix, exe)
		}
	}
	code, err := launcher.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(stderr, "gompirun:", err)
	}
	return code
}

// checkApps checks, before any rank starts, the parameters each app
// context's ranks will read and the size of what they are started with,
// and reports the problems on stderr. A warning the contexts share is
// printed once. It returns the profiling tools whose parts gompirun
// merges that the contexts' ranks run.
func checkApps(ctx context.Context, opt *options, env []string, stderr io.Writer) (tools []string, ok bool) {
	log := paramLog(&onceWriter{w: stderr})
	for i, app := range opt.apps {
		where := ""
		if len(opt.apps) > 1 {
			where = fmt.Sprintf(" (app context %d, %s)", i+1, app.program)
		}
		appEnv := append(slices.Clip(env), app.exports...)
		program := app.program
		if p, err := node.ResolveProgram(opt.wdir, program, nil); err == nil {
			program = p.Path // as the ranks find it; the launcher explains a failure
		}
		err := withExports(app.exports, func() error {
			appTools, err := checkParams(ctx, appEnv, append([]string{program}, app.args...), log)
			tools = append(tools, appTools...)
			return err
		})
		if err != nil {
			printProblems(stderr, where, err)
			return nil, false
		}
		if err := checkExecSize(append([]string{app.program}, app.args...), appEnv, opt.mca, systemExecLimits()); err != nil {
			fmt.Fprintf(stderr, "gompirun: %v%s; no rank was started\n", err, where)
			return nil, false
		}
	}
	slices.Sort(tools)
	return slices.Compact(tools), true
}

// beforeLaunch watches sigs and the timeout while gompirun prepares the
// job: the context it returns ends at the first signal or when the
// timeout expires, so that asking the program which components it links
// stops at once. stop ends the watch before the launcher takes sigs over
// and returns the signal that came, if one did.
func beforeLaunch(sigs <-chan os.Signal, started time.Time, timeout time.Duration) (context.Context, func() os.Signal) {
	var ctx context.Context
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithDeadline(context.Background(), started.Add(timeout))
	} else {
		ctx, cancel = context.WithCancel(context.Background())
	}
	done := make(chan struct{})
	got := make(chan os.Signal, 1)
	go func() {
		select {
		case s := <-sigs:
			got <- s
			cancel()
		case <-done:
			got <- nil
		}
	}()
	return ctx, func() os.Signal {
		close(done)
		s := <-got
		cancel()
		return s
	}
}

// mergerFor is the merger of a profiling tool's parts: those of the tools
// gompirun links (components/all, imported in check.go, brings stats and
// trace), which registered them at init.
func mergerFor(tool string) launcher.MergeFunc {
	if m := prof.MergerFor(tool); m != nil {
		return launcher.MergeFunc(m)
	}
	return nil
}

// rankEnv is the environment the ranks start from, before their app
// context's -x exports: gompirun's own, the --mca/--tune settings and the
// installation prefix. The settings are marked checked: gompirun reports
// their warnings, not the ranks.
func rankEnv(environ []string, opt *options, exe string) []string {
	env := append([]string(nil), environ...)
	env = append(env, params.Launch{MCA: opt.mca, Tune: opt.tune, Checked: true}.Env()...)
	if !hasVar(env, params.PrefixEnvVar) {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		env = append(env, params.PrefixEnvVar+"="+filepath.Dir(filepath.Dir(exe)))
	}
	return env
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return true
		}
	}
	return false
}

// paramLog is the logger of the parameter check: warnings, once.
func paramLog(stderr io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "gompirun", Level: hclog.Warn, Output: stderr, DisableTime: true})
}

// isParam reports whether name is a parameter of gompi's built-in
// components or its core.
func isParam(name string) bool {
	sys := mca.New(mca.Options{Logger: hclog.NewNullLogger(), Params: pmpi.RegisterParams})
	defer sys.Close()
	_, ok := sys.Params().Lookup(name)
	return ok
}

// newLog is gompirun's logger, at the level -v gives. Its levels are
// independent: the plm system's loggers take theirs from its parameters
// (launchAgent), and -v keeps gompirun's own.
func newLog(verbose int, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:              "gompirun",
		Level:             logLevel(verbose),
		Output:            w,
		IndependentLevels: true,
	})
}

func logLevel(verbose int) hclog.Level {
	switch {
	case verbose >= 2:
		return hclog.Trace
	case verbose == 1:
		return hclog.Debug
	}
	return hclog.Warn
}
