package launcher

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/node"
)

// Config describes one job.
type Config struct {
	// Apps are the job's app contexts. Ranks are numbered across them in
	// order (the first app's ranks come first), and each rank learns its
	// app's index as GOMPI_APPNUM (MPI_APPNUM).
	Apps []node.App
	// Env is the environment every rank starts from (gompirun passes its own
	// plus --mca and GOMPI_PREFIX); each rank's app exports and identity
	// are added. nil means os.Environ().
	Env []string
	// Bind chooses each rank's CPUs among those in gompirun's affinity
	// mask (see node.StartRank). Go sizes GOMAXPROCS from the mask, so a rank
	// gets as many threads as CPUs.
	Bind node.Bind
	// Dir is the ranks' working directory, where a relative program path
	// with a slash is found too; "" is gompirun's. On another host where
	// it does not exist, the ranks start in the daemon's directory.
	Dir string
	// ReaperExe, when set, is run as the job's reaper (package reaper):
	// if gompirun is killed, it kills what is left of the job and removes
	// the job's files.
	ReaperExe string
	Timeout   time.Duration // stop the job with ExitTimeout after this long; 0: never
	Started   time.Time     // when Timeout began to count; zero: when Run starts
	// ReportStateOnTimeout prints what every rank waits for before a
	// timeout stops the job; StackTraces adds every goroutine's stack to
	// such reports.
	ReportStateOnTimeout bool
	StackTraces          bool
	// StateAnswerWait is how long a state report waits for the ranks'
	// answers; 0 is a second.
	StateAnswerWait time.Duration
	// StateRequests asks for a state report of the running job (gompirun
	// sends SIGQUIT here).
	StateRequests <-chan os.Signal
	Output        OutputOptions
	// Stdin goes to rank 0 (the other ranks read /dev/null); nil gives rank
	// 0 /dev/null too. A terminal is read by Run and copied through a pipe,
	// since rank 0 is not in the terminal's foreground process group.
	Stdin *os.File
	// Stdout and Stderr get the ranks' output and Run's messages; nil
	// discards. The ranks' output waits for a slow writer, but once a
	// signal or the timeout stopped the job and the ranks are dead, what
	// cannot be written soon is dropped: Run may then return with a
	// Write still in progress.
	Stdout, Stderr io.Writer
	// Signals received here are forwarded to every rank, then the job is
	// stopped and Run returns 128+signo. A second signal kills at once.
	Signals <-chan os.Signal
	Log     hclog.Logger // nil: discard
	// LogOutput, if set, is where Log writes: Run then routes it through
	// the job's terminal, beside its own messages.
	LogOutput *LogOutput
	TempDir   string        // parent of the session directory; "": os.TempDir()
	Grace     time.Duration // between SIGTERM and SIGKILL; 0: DefaultGrace
	// Hosts names each rank's host, by rank; nil runs every rank on this
	// host, as does a rank whose host is LocalHost. The ranks of another
	// host are started by a daemon (node.RunDaemon) that Agent starts
	// there with the command line Daemon; they reach the job server over
	// TCP.
	Hosts     []string
	LocalHost string
	Agent     func(host string, argv []string) (*exec.Cmd, error)
	Daemon    []string
	// ShowMap, if set, is called once every host is ready and before any
	// rank starts, with each rank's CPUs by rank (nil: not bound): for
	// --display-map, which shows the other hosts' bindings only once
	// their daemons have chosen them. Its error ends the launch.
	ShowMap func(cpus [][]int) error
	// Fanout, when positive, bounds the daemons gompirun, or a daemon,
	// starts itself: with more other hosts, the daemons start the rest
	// as a tree (see tree.go).
	Fanout int
	// Mergers finds the merger of a profiling tool's parts (see
	// MergeFunc), nil when it has none; gompirun passes prof.MergerFor.
	// When the job has ended, the parts the ranks submitted are merged in
	// the working directory, and the reports listed with those announced.
	Mergers func(tool string) MergeFunc
	// Profiling names the profiling tools the ranks run whose parts
	// Mergers merges: one of them without a part from any rank (none
	// finished Finalize) has no report, and gompirun says so.
	Profiling []string
}

// DefaultGrace is how long stopped ranks get between SIGTERM and SIGKILL.
const DefaultGrace = 500 * time.Millisecond

// SignalGrace is how long the ranks get between a signal gompirun
// forwards to them (SIGINT, SIGTERM, SIGHUP) and SIGKILL, at least: a
// program that catches it to write a checkpoint and finalize has the
// time, as Slurm's KillWait gives; a second signal kills at once.
const SignalGrace = 10 * time.Second

// fill checks cfg, fills in the defaults and returns the job's size.
func (cfg *Config) fill() (np int, err error) {
	if len(cfg.Apps) == 0 {
		return 0, errors.New("no program to run")
	}
	for i, app := range cfg.Apps {
		what := ""
		if len(cfg.Apps) > 1 {
			what = fmt.Sprintf("app context %d: ", i+1)
		}
		if app.NP < 1 {
			return 0, fmt.Errorf("%s%d ranks requested: at least 1 is needed", what, app.NP)
		}
		if app.Program == "" {
			return 0, fmt.Errorf("%sno program to run", what)
		}
		np += app.NP
	}
	if cfg.Timeout < 0 {
		return 0, fmt.Errorf("timeout %s: must not be negative", cfg.Timeout)
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	if cfg.Hosts != nil {
		if len(cfg.Hosts) != np {
			return 0, fmt.Errorf("%d hosts given for %d ranks", len(cfg.Hosts), np)
		}
		for _, h := range cfg.Hosts {
			if h != cfg.LocalHost && (cfg.Agent == nil || len(cfg.Daemon) == 0) {
				return 0, fmt.Errorf("rank on host %s: no launch agent to start it there", h)
			}
		}
	}
	return np, nil
}

// place splits the ranks into this host's, in order, and each other
// host's, numbered on their host in rank order.
func (cfg *Config) place(np int) (local []int, byHost map[string][]node.DaemonRank) {
	byHost = map[string][]node.DaemonRank{}
	apps := make([]int, 0, np)
	for i, app := range cfg.Apps {
		for range app.NP {
			apps = append(apps, i)
		}
	}
	for rank := range np {
		if cfg.Hosts == nil || cfg.Hosts[rank] == cfg.LocalHost {
			local = append(local, rank)
			continue
		}
		h := cfg.Hosts[rank]
		byHost[h] = append(byHost[h], node.DaemonRank{Rank: rank, Local: len(byHost[h]), App: apps[rank]})
	}
	return local, byHost
}

// runsHere reports whether app context i has a rank on this host.
func (cfg *Config) runsHere(i, np int) bool {
	if cfg.Hosts == nil {
		return true
	}
	first := 0
	for k := range i {
		first += cfg.Apps[k].NP
	}
	for rank := first; rank < first+cfg.Apps[i].NP && rank < np; rank++ {
		if cfg.Hosts[rank] == cfg.LocalHost {
			return true
		}
	}
	return false
}
