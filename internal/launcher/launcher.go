// Package launcher runs a gompi job on this host: it starts the job server
// (see Server), starts the rank processes with their identity in the
// environment, forwards their output, and supervises them. Any rank that
// fails before its Finalize returned stops the whole job; Run reports which
// rank failed and returns the status gompirun exits with.
package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/internal/reaper"
)

// ExitTimeout is the status Run returns when Config.Timeout expires, as
// timeout(1) does.
const ExitTimeout = 124

// errTimedOut is in the error of a launch that Config.Timeout ended.
var errTimedOut = errors.New("job timed out")

// Run runs the job described by cfg and returns the status gompirun should
// exit with: 0 when every rank succeeded, else that of the failure that
// caused the stop (see verdict): a rank's (see classify), ExitTimeout on
// timeout, 128+signo on a signal. Failures
// are reported as "gompirun: ..." lines on cfg.Stderr. An error means the
// job could not be set up; then no rank is left running, and the status
// is 1, ExitTimeout when the timeout expired during the launch, or
// 128+signo when a signal called the launch off.
func Run(ctx context.Context, cfg Config) (int, error) {
	np, err := cfg.fill()
	if err != nil {
		return 1, err
	}
	local, byHost := cfg.place(np)
	progs := make([]node.Program, len(cfg.Apps))
	for i, app := range cfg.Apps {
		if !cfg.runsHere(i, np) {
			continue // the daemons find it on their hosts
		}
		if progs[i], err = node.ResolveProgram(cfg.Dir, app.Program, app.Args); err != nil {
			if len(cfg.Apps) > 1 {
				err = fmt.Errorf("app context %d: %w", i+1, err)
			}
			return 1, err
		}
	}
	rankCPUs, err := node.LocalCPUs(cfg.Bind, len(local))
	if err != nil {
		return 1, err
	}
	var files [][2]*os.File
	if cfg.Output.Dir != "" {
		if files, err = openOutputFiles(cfg.Output.Dir, np); err != nil {
			return 1, err
		}
		defer closeOutputFiles(files)
	}

	// The timeout counts from Started, or from here: it bounds the launch
	// on the other hosts too, as Open MPI's does.
	var timeout <-chan time.Time
	if cfg.Timeout > 0 {
		left := cfg.Timeout
		if !cfg.Started.IsZero() {
			left -= time.Since(cfg.Started)
		}
		t := time.NewTimer(max(left, 0))
		defer t.Stop()
		timeout = t.C
	}

	node.SweepStale(cfg.TempDir, cfg.Log)
	sess, err := node.NewSession(cfg.TempDir)
	if err != nil {
		return 1, err
	}
	defer sess.Remove()

	j := &job{
		cfg:     cfg,
		np:      np,
		jobID:   sess.JobID,
		sessDir: sess.Dir,
		log:     cfg.Log,
		term:    newTerminal(cfg.Stdout, cfg.Stderr),
		pids:    make([]int, np),
		files:   files,
		remote:  map[int]*remoteHost{},
		cause:   -1,
		sent:    make([]map[syscall.Signal]bool, np),
		exits:   make(chan exitEvent, np),
		stopReq: make(chan struct{}),
		timeout: timeout,
	}
	if cfg.LogOutput != nil {
		detach := cfg.LogOutput.attach(j.term.stderr())
		defer func() {
			detach()
			j.flushOutput(0) // the lines logged since the last flush
		}()
	}
	supervised := false
	defer func() {
		if !supervised { // what the launch had to say
			j.flushOutput(0)
		}
		j.mu.Lock()
		if j.dropTimer != nil {
			j.dropTimer.Stop()
		}
		j.mu.Unlock()
	}()
	j.fwd = &forwarder{jobID: sess.JobID, hosts: tagHosts(cfg), opts: cfg.Output, term: j.term, now: time.Now,
		partialAfter: partialLineWait}
	j.srv, err = NewServer(ServerConfig{
		JobID: sess.JobID, Size: np, Secret: sess.Secret,
		OnAbort: j.onAbort, OnLost: j.onLost, Log: cfg.Log.Named("server"),
	})
	if err != nil {
		return 1, err
	}
	l, err := net.Listen("unix", sess.Socket)
	if err != nil {
		return 1, fmt.Errorf("job server: %w", err)
	}
	serveDone := make(chan error, 1)
	go func() { serveDone <- j.srv.Serve(l) }()
	defer func() {
		j.srv.Stop()
		if err := <-serveDone; err != nil {
			j.log.Debug("job server stopped", "error", err)
		}
	}()
	j.log.Debug("job server listening", "job", sess.JobID, "socket", sess.Socket)
	if len(byHost) > 0 {
		// Other hosts reach the server over TCP, on every interface: each
		// is told the address of the one that routes to it.
		tl, err := net.Listen("tcp", ":0")
		if err != nil {
			return 1, fmt.Errorf("job server: listening for other hosts: %w", err)
		}
		go func() {
			if err := j.srv.Serve(tl); err != nil {
				j.log.Debug("job server stopped serving other hosts", "error", err)
			}
		}()
		j.log.Debug("job server listening for other hosts", "address", tl.Addr())
		addrs, err := serverAddrs(tl)
		if err != nil {
			return 1, fmt.Errorf("job server: %w", err)
		}
		wd := cfg.Dir
		if wd == "" {
			wd, _ = os.Getwd()
		}
		spec := node.DaemonSpec{JobID: sess.JobID, Secret: sess.Secret, Size: np, Env: remoteEnv(node.RankEnvBase(cfg.Env)),
			Apps: cfg.Apps, Dir: wd, Grace: int64(cfg.Grace), Servers: addrs}
		// Every host must be ready before any rank starts anywhere.
		if err := j.launchRemote(byHost, spec); err != nil {
			var sig *launchSignalled
			switch {
			case errors.Is(err, errTimedOut):
				return ExitTimeout, err
			case errors.As(err, &sig):
				return sig.status(), err
			}
			return 1, err
		}
	}

	if cfg.ShowMap != nil {
		if err := cfg.ShowMap(j.rankCPUs(local, rankCPUs)); err != nil {
			j.endRemote()
			return 1, err
		}
	}

	// The ranks' lifeline: they inherit the read end; the write end stays
	// here (close-on-exec) and closes when gompirun exits, however it exits.
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return 1, fmt.Errorf("creating the ranks' lifeline: %w", err)
	}
	defer lifeW.Close()
	j.lifeline = lifeR
	var reap *reaper.Reaper
	if cfg.ReaperExe != "" {
		if reap, err = reaper.Start(cfg.ReaperExe, sess.JobID, sess.Dir); err != nil {
			j.log.Warn("no reaper: a killed gompirun may leave the job's files and processes", "error", err)
		}
	}
	env := node.RankEnvBase(cfg.Env)
	started := j.startAll(progs, env, sess, rankCPUs, local)
	lifeR.Close() // the ranks hold their copies
	var remote []int
	if len(byHost) > 0 {
		j.goRemote()
		for _, ranks := range byHost {
			for _, r := range ranks {
				remote = append(remote, r.Rank)
			}
		}
	}
	code := j.supervise(ctx, started, remote)
	supervised = true
	// Not deferred: a gompirun that panics has not stopped its ranks, and
	// its reaper must end them.
	reap.Release()
	return code, nil
}

// job is one running job.
type job struct {
	cfg     Config
	np      int // ranks in all, over every app context
	jobID   string
	sessDir string // where the ranks leave their profiling parts
	log     hclog.Logger
	term    *terminal
	fwd     *forwarder
	srv     *Server
	exits   chan exitEvent
	pumps   sync.WaitGroup
	pipes   []*os.File // read ends of the ranks' stdout and stderr
	// lifeline is the read end of the pipe whose write end only gompirun
	// holds; every rank inherits it as node.LifelineFD.
	lifeline *os.File
	files    [][2]*os.File // by rank: where --output-filename copies the output; nil: nowhere

	mu       sync.Mutex
	pids     []int                     // by rank; 0 until started (another host's pid for a remote rank)
	remote   map[int]*remoteHost       // the daemon of each rank on another host
	failures []failure                 // in the order gompirun learned of them
	cause    int                       // index of the first failure that is no consequence, printed when learned; -1 until then
	sent     []map[syscall.Signal]bool // by rank: the signals gompirun sent it
	stopReq  chan struct{}             // closed by the first failure that stops the job
	stopped  bool                      // stopReq is closed
	// dropTimer drops the output that cannot be written, armed once the
	// user asked to stop (see dropOutputLater).
	dropTimer *time.Timer

	timeout <-chan time.Time // fires when Config.Timeout expires; nil: never
}
