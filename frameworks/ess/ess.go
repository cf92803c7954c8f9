// Package ess is the framework through which a rank learns its job (its
// "environment-specific services", as Open MPI names it): who it is (rank,
// size, the ranks on its host, the job's id and secret) and how it
// exchanges what the transports publish (a key-value store with a fence),
// from whichever launcher started it. The launcher shows itself in the
// environment: gompirun's variables, a PMI server's descriptor, nothing
// for a singleton. Each component recognises one launcher in its Query
// and declines the others; Join connects through the one of highest
// priority that accepts.
//
// A Runtime that also implements Announcer lists the files a rank wrote
// for the user when the job ends; one that implements StateServer answers
// the launcher's requests for the rank's state (gompirun's state report).
// Without them, Announce reports that nobody will list the file, and no
// state is reported.
package ess

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gompi/gompi/mca"
)

// Name is the framework's name, and the name of its selection parameter.
const Name = "ess"

// APIVersion is the version of the ess component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "how a rank learns its job and exchanges addresses: from gompirun, a PMI launcher, or alone",
		Accepts:     mca.Implements[Component](),
	})
}

// BaseComponent is the ess framework's base component. Every ess
// component embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

//lint:ignore U1000 never called: it makes embedding BaseComponent the only way to implement Component
func (b *BaseComponent) essBase() *BaseComponent { return b }

// Info is the identity of an ess component built against this version of
// the framework, with its constructor; pass it to mca.Register.
func Info(name string, version mca.Version, priority int, newComponent func() mca.Component) mca.Info {
	return mca.NewInfo(Name, APIVersion(), name, version, priority, newComponent)
}

// Component is an ess component. Its Query accepts only where its launcher
// started the process (mca.ErrDeclined otherwise), and fails, marked
// mca.Fatal, where the environment names its launcher but says something
// inconsistent: running as something else would hide a broken launch.
type Component interface {
	mca.Component
	essBase() *BaseComponent
	// Connect joins the job. Join calls it on the selected component only.
	Connect(ctx context.Context) (Runtime, error)
}

// Job is a rank's identity within its job.
type Job struct {
	Rank, Size, LocalRank, LocalSize int
	AppNum                           int // index of the rank's app context (MPI_APPNUM); 0 for a singleton
	JobID                            string
	Secret                           []byte // per-job random secret (>= 32 bytes); authenticates the transports' connections
	Hostname                         string
	SessionDir                       string // the job's private directory on this host; "" if none
	Singleton                        bool   // started without a launcher: rank 0 of 1
}

// Runtime is a rank's connection to its job. It is safe for concurrent
// use, except that one rank must not run two Fences at once.
type Runtime interface {
	// Job returns this rank's identity; the caller may keep it.
	Job() Job
	// Put publishes value under key for the other ranks, visible to them
	// after the next Fence.
	Put(ctx context.Context, key string, value []byte) error
	// Fence returns once every rank has called it as many times.
	Fence(ctx context.Context) error
	// Get returns what rank put under key, waiting for it if need be.
	Get(ctx context.Context, rank int, key string) ([]byte, error)
	// Abort tells the launcher that this rank aborts the job with code.
	Abort(ctx context.Context, code int, msg string, failedPeers []int) error
	// Finalize tells the launcher that this rank finished cleanly.
	Finalize(ctx context.Context) error
	// Close releases the connection.
	Close() error
}

// Announcer is a Runtime whose launcher lists, when the job ends, the
// files that ranks wrote for the user (a profiling tool's report).
type Announcer interface {
	// Announce records path; false means nobody will list it.
	Announce(ctx context.Context, path string) (bool, error)
}

// StateServer is a Runtime whose launcher can ask a rank what it is doing.
type StateServer interface {
	// ServeState answers the launcher's requests with report, from a
	// goroutine of its own, until ctx ends.
	ServeState(ctx context.Context, report func(stacks bool) State)
}

// Join opens fw, the ess framework of a loaded system, and connects through
// the accepting component of highest priority.
func Join(ctx context.Context, fw *mca.Framework) (Runtime, error) {
	if err := fw.Open(ctx); err != nil {
		return nil, err
	}
	sel, err := fw.Select(ctx)
	if err != nil {
		return nil, err
	}
	if len(sel) == 0 {
		var names []string
		for _, c := range fw.Components() {
			names = append(names, c.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: the program links no ess component; link the standard ones with "+
				`import _ "github.com/gompi/gompi/components/all"`, Name)
		}
		return nil, fmt.Errorf("%s: no component recognises how this process was started (components: %s)",
			Name, strings.Join(names, ", "))
	}
	c := sel[0]
	rt, err := c.Component.(Component).Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", Name, c.Name, err)
	}
	return rt, nil
}

// launchVars are the known launchers' variables for a process's rank and
// the job's size: gompirun's, PMI's, PMIx's (prterun sets Open MPI's size)
// and Slurm's.
var launchVars = [...]struct{ rank, size string }{
	{"GOMPI_COMM_WORLD_RANK", "GOMPI_COMM_WORLD_SIZE"},
	{"PMI_RANK", "PMI_SIZE"},
	{"PMIX_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"SLURM_PROCID", "SLURM_NTASKS"},
}

// LaunchRank is the rank that a known launcher names in the environment,
// or 0: before any component runs, it lets only rank 0 print the
// parameters' warnings.
func LaunchRank(getenv func(string) string) int {
	for _, v := range launchVars {
		if n, err := strconv.Atoi(getenv(v.rank)); err == nil {
			return n
		}
	}
	return 0
}

// LaunchSize is the job's size as a known launcher names it in the
// environment, known before any component runs: 1 where no launcher's
// rank variable is set (a singleton), 0 where one is but no launcher
// names the size.
func LaunchSize(getenv func(string) string) int {
	launched := false
	for _, v := range launchVars {
		if getenv(v.rank) == "" {
			continue
		}
		launched = true
		if n, err := strconv.Atoi(getenv(v.size)); err == nil && n > 0 {
			return n
		}
	}
	if launched {
		return 0
	}
	return 1
}

// ErrNotLaunched is a component's decline where its launcher did not
// start the process.
var ErrNotLaunched = fmt.Errorf("%w: not started by this launcher", mca.ErrDeclined)
