// Package launcher runs a gompi job on this host: it starts the job server
// (see Server), starts the rank processes with their identity in the
// environment, forwards their output, and supervises them. Any rank that
// fails stops the whole job; Run reports which rank failed and returns the
// status gompirun exits with.
package launcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/rte"
)

// ExitTimeout is the status Run returns when Config.Timeout expires, as
// timeout(1) does.
const ExitTimeout = 124

// DefaultGrace is how long stopped ranks get between SIGTERM and SIGKILL.
const DefaultGrace = 500 * time.Millisecond

// maxSocketPath is the longest unix socket path Linux accepts (sun_path
// holds 108 bytes including the terminating NUL).
const maxSocketPath = 107

// App is one app context of a job: NP ranks running one program with
// the same arguments and exports, as one "-np N program args" of an MPMD
// command line.
type App struct {
	NP      int      // number of ranks, >= 1
	Program string   // executable, looked up in $PATH unless it contains a slash
	Args    []string // its arguments
	Env     []string // NAME=value entries added for these ranks only (-x)
}

// Config describes one job.
type Config struct {
	// Apps are the job's app contexts. Ranks are numbered across them in
	// order (the first app's ranks come first), and each rank learns its
	// app's index as GOMPI_APPNUM (MPI_APPNUM).
	Apps []App
	// Env is the environment every rank starts from (gompirun passes its own
	// plus --mca and GOMPI_PREFIX); each rank's app exports and identity
	// are added. nil means os.Environ().
	Env []string
	// Bind chooses each rank's CPUs among those in gompirun's affinity
	// mask (see startRank). Go sizes GOMAXPROCS from the mask, so a rank
	// gets as many threads as CPUs.
	Bind Bind
	// ReaperExe, when set, is run as the job's reaper (see RunReaper): if
	// gompirun is killed, it kills what is left of the job and removes the
	// job's files.
	ReaperExe string
	Timeout   time.Duration // stop the job with ExitTimeout after this long; 0: never
	// ReportStateOnTimeout prints what every rank waits for before a
	// timeout stops the job; StackTraces adds every goroutine's stack to
	// such reports.
	ReportStateOnTimeout bool
	StackTraces          bool
	// StateRequests asks for a state report of the running job (gompirun
	// sends SIGQUIT here).
	StateRequests <-chan os.Signal
	Output        OutputOptions
	// Stdin goes to rank 0 (the other ranks read /dev/null); nil gives rank
	// 0 /dev/null too. A terminal is read by Run and copied through a pipe,
	// since rank 0 is not in the terminal's foreground process group.
	Stdin          *os.File
	Stdout, Stderr io.Writer // nil: discard
	// Signals received here are forwarded to every rank, then the job is
	// stopped and Run returns 128+signo. A second signal kills at once.
	Signals <-chan os.Signal
	Log     hclog.Logger  // nil: discard
	TempDir string        // parent of the session directory; "": os.TempDir()
	Grace   time.Duration // between SIGTERM and SIGKILL; 0: DefaultGrace
	// Mergers finds the merger of a profiling tool's parts (see
	// MergeFunc), nil when it has none; gompirun passes prof.MergerFor.
	// When the job has ended, the parts the ranks submitted are merged in
	// the working directory, and the reports listed with those announced.
	Mergers func(tool string) MergeFunc
}

// Run runs the job described by cfg and returns the status gompirun should
// exit with: 0 when every rank succeeded, else that of the first failure
// (see classify), ExitTimeout on timeout, 128+signo on a signal. Failures
// are reported as "gompirun: ..." lines on cfg.Stderr. An error means the
// job could not be set up; then no rank is left running.
func Run(ctx context.Context, cfg Config) (int, error) {
	np, err := cfg.fill()
	if err != nil {
		return 1, err
	}
	progs := make([]program, len(cfg.Apps))
	for i, app := range cfg.Apps {
		if progs[i], err = resolveProgram(app.Program, app.Args); err != nil {
			if len(cfg.Apps) > 1 {
				err = fmt.Errorf("app context %d: %w", i+1, err)
			}
			return 1, err
		}
	}
	var rankCPUs [][]int
	if cfg.Bind != BindNone {
		cpus, err := allowedCPUs()
		if err != nil {
			return 1, fmt.Errorf("--bind-to: %w", err)
		}
		rankCPUs = cfg.Bind.rankCPUs(np, cpus)
	}
	var files [][2]*os.File
	if cfg.Output.Dir != "" {
		if files, err = openOutputFiles(cfg.Output.Dir, np); err != nil {
			return 1, err
		}
		defer closeOutputFiles(files)
	}

	sweepStale(cfg.TempDir, cfg.Log)
	sess, err := newSession(cfg.TempDir)
	if err != nil {
		return 1, err
	}
	defer sess.remove()

	j := &job{
		cfg:     cfg,
		np:      np,
		jobID:   sess.jobID,
		sessDir: sess.dir,
		log:     cfg.Log,
		term:    newTerminal(cfg.Stdout, cfg.Stderr),
		pids:    make([]int, np),
		cause:   -1,
		sent:    make([]map[syscall.Signal]bool, np),
		exits:   make(chan exitEvent, np),
		stopReq: make(chan struct{}),
	}
	j.fwd = &forwarder{jobID: sess.jobID, opts: cfg.Output, term: j.term, now: time.Now}
	j.srv, err = NewServer(ServerConfig{
		JobID: sess.jobID, Size: np, Secret: sess.secret,
		OnAbort: j.onAbort, Log: cfg.Log.Named("server"),
	})
	if err != nil {
		return 1, err
	}
	l, err := net.Listen("unix", sess.socket)
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
	j.log.Debug("job server listening", "job", sess.jobID, "socket", sess.socket)

	// The ranks' lifeline: they inherit the read end; the write end stays
	// here (close-on-exec) and closes when gompirun exits, however it exits.
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return 1, fmt.Errorf("creating the ranks' lifeline: %w", err)
	}
	defer lifeW.Close()
	j.lifeline = lifeR
	var reap *reaper
	if cfg.ReaperExe != "" {
		if reap, err = startReaper(cfg.ReaperExe, sess); err != nil {
			j.log.Warn("no reaper: a killed gompirun may leave the job's files and processes", "error", err)
		}
	}
	env := rankEnvBase(cfg.Env)
	started := j.startAll(progs, env, sess, rankCPUs, files)
	lifeR.Close() // the ranks hold their copies
	code := j.supervise(ctx, started)
	// Not deferred: a gompirun that panics has not stopped its ranks, and
	// its reaper must end them.
	reap.release()
	return code, nil
}

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
	return np, nil
}

// session is a job's identity and its private directory holding the
// server's socket.
type session struct {
	jobID  string
	secret []byte
	dir    string
	socket string
}

func newSession(tempDir string) (*session, error) {
	tempDir, err := filepath.Abs(tempDir)
	if err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	secret := make([]byte, rte.MinSecretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("creating the job secret: %w", err)
	}
	for range 10 { // a clash of random ids with a live job is rare; retry
		id := make([]byte, 4)
		if _, err := rand.Read(id); err != nil {
			return nil, fmt.Errorf("creating the job id: %w", err)
		}
		s := &session{jobID: hex.EncodeToString(id), secret: secret}
		s.dir = filepath.Join(tempDir, "gompi."+s.jobID)
		s.socket = filepath.Join(s.dir, "rt.sock")
		if len(s.socket) > maxSocketPath {
			return nil, fmt.Errorf("session directory %s: the socket path %s is %d bytes, longer than the %d a unix socket allows; set TMPDIR to a shorter directory", s.dir, s.socket, len(s.socket), maxSocketPath)
		}
		err := os.Mkdir(s.dir, 0o700)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("creating the session directory: %w", err)
		}
		// Without /proc there is no owner to record; the directory is then
		// never swept, only removed by this job.
		if o, err := selfOwner(); err == nil {
			if err := os.WriteFile(filepath.Join(s.dir, ownerFile), []byte(o.String()), 0o600); err != nil {
				_ = os.Remove(s.dir)
				return nil, fmt.Errorf("creating the session directory: %w", err)
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("creating the session directory in %s: every job id tried was taken", tempDir)
}

// remove removes the session directory and the job's shared-memory
// segments, if a rank left any.
func (s *session) remove() { _ = rte.RemoveJobFiles(s.jobID, s.dir) }

// lifelineFD is the descriptor number of the lifeline in every rank: the
// first of exec.Cmd.ExtraFiles.
const lifelineFD = 3

// identityVars are set by the launcher for each rank and so dropped from the
// inherited environment, together with the reaper's switch.
var identityVars = []string{
	rte.EnvRank, rte.EnvSize, rte.EnvLocalRank, rte.EnvLocalSize, rte.EnvAppNum,
	rte.EnvJobID, rte.EnvServer, rte.EnvSecret, rte.EnvSessionDir, rte.EnvLifeline, ReaperEnvVar,
}

// rankEnvBase drops from env what each rank gets set for itself, and
// repeated names (the last one wins, as in exec.Cmd).
func rankEnvBase(env []string) []string {
	drop := map[string]bool{}
	for _, name := range identityVars {
		drop[name] = true
	}
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var out []string
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] && last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}

// rankEnv is the environment of one rank of app context appNum: the base,
// the app's exports, then the rank's identity.
func rankEnv(base []string, app App, appNum int, s *session, rank, np int) []string {
	env := append(append([]string(nil), base...), app.Env...)
	return append(env,
		rte.EnvAppNum+"="+strconv.Itoa(appNum),
		rte.EnvRank+"="+strconv.Itoa(rank),
		rte.EnvSize+"="+strconv.Itoa(np),
		rte.EnvLocalRank+"="+strconv.Itoa(rank), // one host: local is global
		rte.EnvLocalSize+"="+strconv.Itoa(np),
		rte.EnvJobID+"="+s.jobID,
		rte.EnvServer+"=unix://"+s.socket,
		rte.EnvSecret+"="+hex.EncodeToString(s.secret),
		rte.EnvSessionDir+"="+s.dir,
		rte.EnvLifeline+"="+strconv.Itoa(lifelineFD),
	)
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
	// holds; every rank inherits it as lifelineFD.
	lifeline *os.File

	mu       sync.Mutex
	pids     []int                     // by rank; 0 until started
	failures []failure                 // in the order gompirun learned of them
	cause    int                       // index of the first failure that is no consequence, printed when learned; -1 until then
	sent     []map[syscall.Signal]bool // by rank: the signals gompirun sent it
	stopReq  chan struct{}             // closed by the first failure
}

// fail records a failure and, at the first one, asks the supervisor to stop
// the job. The root cause is printed as soon as it is known: the first
// failure that is not a consequence of another (a rank that aborted
// because peers failed is one). The followers are listed when the job ends.
func (j *job) fail(f failure) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures = append(j.failures, f)
	if j.cause < 0 && len(f.blames) == 0 {
		j.cause = len(j.failures) - 1
		fmt.Fprintf(j.term.stderr(), "gompirun: %s\n", f.msg)
	}
	if len(j.failures) == 1 {
		j.srv.End(f.msg)
		close(j.stopReq)
	}
}

// verdict settles the cause once every rank is gone, prints it if it was
// not printed yet (every failure blamed a peer whose own end was no
// failure), then the failures that followed, and returns the exit status.
func (j *job) verdict() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.failures) == 0 {
		return 0
	}
	if j.cause < 0 {
		j.cause = 0
		fmt.Fprintf(j.term.stderr(), "gompirun: %s\n", j.failures[0].msg)
	}
	for i := range j.failures {
		if f := &j.failures[i]; i != j.cause && f.rank >= 0 {
			fmt.Fprintf(j.term.stderr(), "gompirun: then %s\n", f.follower())
		}
	}
	return j.failures[j.cause].code
}

// onAbort runs in the job server while the rank's Abort call is pending,
// so the abort is recorded before the rank can be seen exiting.
func (j *job) onAbort(a AbortCall) {
	j.mu.Lock()
	pid := j.pids[a.Rank]
	j.mu.Unlock()
	what := fmt.Sprintf("called Abort with code %d: %s", a.Code, a.Message)
	j.fail(failure{
		msg:    fmt.Sprintf("rank %d (pid %d) %s; stopping the job", a.Rank, pid, what),
		what:   what,
		code:   rte.AbortStatus(a.Code),
		rank:   a.Rank,
		pid:    pid,
		blames: a.FailedPeers,
	})
}

// startAll starts every rank in order, app context by app context (progs
// holds each context's program), and returns the pids of those started.
// If one cannot be started the job fails and no more are started.
func (j *job) startAll(progs []program, env []string, s *session, rankCPUs [][]int, files [][2]*os.File) []int {
	var started []int
	stdin, closeStdin := j.stdinForRank0()
	defer closeStdin()
	appNum, appEnd := 0, j.cfg.Apps[0].NP
	for rank := range j.np {
		if rank == appEnd {
			appNum++
			appEnd += j.cfg.Apps[appNum].NP
		}
		prog, app := progs[appNum], j.cfg.Apps[appNum]
		var rio rankIO
		if rank == 0 {
			rio.stdin = stdin
		}
		var childEnds []*os.File
		for _, kind := range []streamKind{stdoutStream, stderrStream} {
			r, w, err := os.Pipe()
			if err != nil {
				j.closeFiles(childEnds)
				j.fail(jobFailure(fmt.Sprintf("cannot start rank %d: %v; stopping the job", rank, err), 1))
				return started
			}
			if kind == stdoutStream {
				rio.stdout = w
			} else {
				rio.stderr = w
			}
			childEnds = append(childEnds, w)
			var file *os.File
			if files != nil {
				file = files[rank][kind]
			}
			j.pipes = append(j.pipes, r)
			j.pumps.Add(1)
			go func() {
				defer j.pumps.Done()
				j.fwd.pump(r, rank, kind, fileWriter(file))
			}()
		}
		var cpus []int
		if rankCPUs != nil {
			cpus = rankCPUs[rank]
		}
		cmd := prog.command(rankEnv(env, app, appNum, s, rank, j.np), rio)
		cmd.ExtraFiles = []*os.File{j.lifeline} // descriptor 3: lifelineFD
		pid, err := startRank(cmd, rank, cpus, j.exits)
		j.closeFiles(childEnds) // the child has its copies; EOF comes when it is gone
		if err != nil {
			j.fail(jobFailure(fmt.Sprintf("cannot start rank %d (program %q): %v; stopping the job", rank, prog.path, err), 1))
			return started
		}
		j.mu.Lock()
		j.pids[rank] = pid
		j.mu.Unlock()
		started = append(started, pid)
		j.log.Debug("rank started", "rank", rank, "pid", pid, "cpus", cpus)
	}
	return started
}

// fileWriter keeps a nil *os.File from becoming a non-nil io.Writer.
func fileWriter(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}

func (j *job) closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// stdinForRank0 returns the file rank 0 reads and a cleanup to run once
// every rank has been started.
func (j *job) stdinForRank0() (*os.File, func()) {
	in := j.cfg.Stdin
	if in == nil {
		return nil, func() {}
	}
	if _, err := in.Stat(); err != nil {
		j.log.Debug("stdin is not usable; rank 0 reads /dev/null", "error", err)
		return nil, func() {}
	}
	fd := int(in.Fd())
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return in, func() {} // not a terminal: rank 0 reads it directly
	}
	// A terminal: rank 0, in its own process group, would be stopped by
	// SIGTTIN if it read it, so gompirun copies it through a pipe, but
	// only when it is itself in the foreground (else reading would stop
	// gompirun). The copy ends when rank 0 closes the pipe or the terminal
	// reports EOF.
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || pgrp != unix.Getpgrp() {
		j.log.Debug("gompirun runs in the background; rank 0 reads /dev/null")
		return nil, func() {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		j.log.Warn("cannot forward the terminal to rank 0; it reads /dev/null", "error", err)
		return nil, func() {}
	}
	go func() {
		_, _ = io.Copy(w, in)
		w.Close()
	}()
	return r, func() { r.Close() }
}

// supervise waits for every started rank to exit, stopping the job on the
// first failure, timeout, signal or cancellation, and returns the status.
func (j *job) supervise(ctx context.Context, pids []int) int {
	alive := map[int]int{} // rank -> pid
	for rank, pid := range pids {
		alive[rank] = pid
	}
	var timeout <-chan time.Time
	if j.cfg.Timeout > 0 {
		t := time.NewTimer(j.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	stopReq := j.stopReq
	var kill <-chan time.Time
	done := ctx.Done()
	signalAll := func(sig syscall.Signal) {
		j.mu.Lock()
		for rank, pid := range alive {
			// A rank that died before this, whose exit is not read yet,
			// did not die of this signal: its own death is the failure.
			if exited(pid) {
				continue
			}
			if j.sent[rank] == nil {
				j.sent[rank] = map[syscall.Signal]bool{}
			}
			j.sent[rank][sig] = true
		}
		j.mu.Unlock()
		for rank, pid := range alive { // the group still: a dead rank's children may linger
			if err := signalGroup(pid, sig); err != nil {
				j.log.Warn("cannot signal rank", "rank", rank, "error", err)
			}
		}
	}

	for len(alive) > 0 {
		select {
		case ev := <-j.exits:
			delete(alive, ev.rank)
			j.srv.RankExited(ev.rank)
			connected, finalized := j.srv.RankState(ev.rank)
			j.log.Debug("rank exited", "rank", ev.rank, "pid", ev.pid, "status", ev.status.ExitStatus(), "signaled", ev.status.Signaled())
			if f, bad := classify(ev, connected, finalized); bad && !j.killedByUs(ev) && !j.aborted(ev.rank) {
				j.fail(f)
			}
		case <-stopReq:
			stopReq = nil
			signalAll(syscall.SIGTERM)
			kill = time.After(j.cfg.Grace)
		case <-kill:
			kill = nil
			signalAll(syscall.SIGKILL)
		case <-j.cfg.StateRequests:
			j.reportState(ctx, "asked for with SIGQUIT", alive)
		case <-timeout:
			timeout = nil
			secs := strconv.FormatFloat(j.cfg.Timeout.Seconds(), 'f', -1, 64)
			if j.cfg.ReportStateOnTimeout {
				j.reportState(ctx, "at the timeout, after "+secs+" seconds", alive)
			}
			j.fail(jobFailure("job timed out after "+secs+" seconds; killing ranks", ExitTimeout))
		case sig := <-j.cfg.Signals:
			s, ok := sig.(syscall.Signal)
			if !ok {
				continue
			}
			if j.stopping() {
				signalAll(syscall.SIGKILL) // asked twice: do not wait for the grace period
				continue
			}
			signalAll(s)
			j.fail(jobFailure("received "+signalName(s)+"; forwarded it to the ranks and stopping the job", 128+int(s)))
		case <-done:
			done = nil
			j.fail(jobFailure("stopping the job: "+context.Cause(ctx).Error(), 1))
		}
	}

	// Children the ranks left in their process groups go too.
	for _, pid := range pids {
		_ = signalGroup(pid, syscall.SIGKILL)
	}
	j.drainOutput()
	for _, path := range append(j.srv.Reports(), j.mergeParts()...) {
		fmt.Fprintf(j.term.stderr(), "gompirun: report written: %s\n", path)
	}

	return j.verdict()
}

// reportState asks every rank what it is doing and prints the answers
// with what they say together (see writeState). alive holds the ranks not
// seen exiting.
func (j *job) reportState(ctx context.Context, why string, alive map[int]int) {
	reports := j.srv.CollectState(ctx, j.cfg.StackTraces, stateAnswerWait)
	j.mu.Lock()
	pids := slices.Clone(j.pids)
	j.mu.Unlock()
	gone := make([]string, len(pids))
	for rank := range pids {
		connected, finalized := j.srv.RankState(rank)
		_, running := alive[rank]
		switch {
		case !running:
			gone[rank] = "has exited"
		case finalized:
			gone[rank] = "has called Finalize"
		case !connected:
			gone[rank] = "has not reached Init's connection to gompirun yet"
		}
	}
	writeState(j.term.stderr(), why, pids, gone, reports)
}

func (j *job) stopping() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.failures) > 0
}

// killedByUs reports whether a rank died of a signal gompirun sent it: a
// consequence of the stop, not a failure of its own. A rank that exited
// with a status, or of another signal, failed on its own, even if it did
// so while gompirun was stopping the job.
func (j *job) killedByUs(ev exitEvent) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return ev.status.Signaled() && j.sent[ev.rank][ev.status.Signal()]
}

// aborted reports whether rank's failure is already recorded as its Abort,
// whose exit status follows from it.
func (j *job) aborted(rank int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, f := range j.failures {
		if f.rank == rank {
			return true
		}
	}
	return false
}

// drainOutput waits for the output pumps to reach EOF. A process that
// escaped its rank's process group may still hold a pipe open; after a
// while the pipes are closed so gompirun can exit.
func (j *job) drainOutput() {
	done := make(chan struct{})
	go func() {
		j.pumps.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		j.log.Warn("output still open after every rank exited; closing it")
		j.closeFiles(j.pipes)
		<-done
	}
	j.closeFiles(j.pipes)
}
