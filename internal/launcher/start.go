package launcher

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// program is the resolved command the ranks of one app context run.
type program struct {
	path string   // absolute or relative path to the executable
	argv []string // argv[0] as the user typed it, then the arguments
}

// resolveProgram finds name the way a shell would and explains failures.
// A relative path with a slash is taken from dir, if dir is not empty
// (the ranks' working directory on another host).
func resolveProgram(dir, name string, args []string) (program, error) {
	look := name
	if dir != "" && strings.Contains(name, "/") && !filepath.IsAbs(name) {
		look = filepath.Join(dir, name)
	}
	path, err := exec.LookPath(look)
	if err != nil {
		switch {
		case errors.Is(err, exec.ErrDot):
			return program{}, fmt.Errorf("program %q was found only in the current directory through a relative $PATH entry; run it as ./%s", name, name)
		case errors.Is(err, exec.ErrNotFound):
			return program{}, fmt.Errorf("program %q not found in $PATH", name)
		case errors.Is(err, fs.ErrNotExist):
			return program{}, fmt.Errorf("program %q does not exist", name)
		case errors.Is(err, syscall.EISDIR):
			return program{}, fmt.Errorf("program %q is a directory", name)
		case errors.Is(err, fs.ErrPermission):
			return program{}, fmt.Errorf("program %q is not executable", name)
		}
		return program{}, fmt.Errorf("cannot run program %q: %w", name, err)
	}
	return program{path: path, argv: append([]string{name}, args...)}, nil
}

// appOf returns the index of rank's app context.
func (j *job) appOf(rank int) int {
	for i, app := range j.cfg.Apps {
		if rank < app.NP {
			return i
		}
		rank -= app.NP
	}
	return len(j.cfg.Apps) - 1
}

// startAll starts this host's ranks, local, in order (progs holds each
// app context's program, rankCPUs each local rank's CPUs), and returns
// the pids of those started by rank. If one cannot be started the job
// fails and no more are started.
func (j *job) startAll(progs []program, env []string, s *session, rankCPUs [][]int, local []int) map[int]int {
	started := map[int]int{}
	var stdin *os.File
	if len(local) > 0 && local[0] == 0 { // else rank 0's daemon gets it (startStdin)
		var closeStdin func()
		stdin, closeStdin = j.stdinForRank0()
		defer closeStdin()
	}
	for li, rank := range local {
		appNum := j.appOf(rank)
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
			if j.files != nil {
				file = j.files[rank][kind]
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
			cpus = rankCPUs[li]
		}
		id := rankIdent{rank: rank, size: j.np, local: li, localSize: len(local),
			jobID: s.jobID, server: "unix://" + s.socket, sessDir: s.dir, secret: s.secret}
		cmd := prog.command(rankEnv(env, app, appNum, id), rio)
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
		started[rank] = pid
		j.log.Debug("rank started", "rank", rank, "pid", pid, "cpus", cpus)
	}
	return started
}

// stdinForRank0 returns the file rank 0 reads on this host and a cleanup
// to run once every rank has been started.
func (j *job) stdinForRank0() (*os.File, func()) {
	in, terminal := j.rank0Stdin()
	if !terminal {
		return in, func() {} // rank 0 reads it directly (nil: /dev/null)
	}
	// A terminal: rank 0, in its own process group, would be stopped by
	// SIGTTIN if it read it, so gompirun, in the foreground, copies it
	// through a pipe. The copy ends when rank 0 closes the pipe or the
	// terminal reports EOF.
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

// rankIO is the standard files of one rank; a nil stdin means /dev/null.
type rankIO struct {
	stdin          *os.File
	stdout, stderr *os.File
}

// command builds the exec.Cmd of one rank.
func (p program) command(env []string, io rankIO) *exec.Cmd {
	cmd := &exec.Cmd{
		Path:   p.path,
		Args:   p.argv,
		Env:    env,
		Stdout: io.stdout,
		Stderr: io.stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true, // own group: stopped as a whole, and no terminal signals
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if io.stdin != nil { // a nil *os.File in the interface would not mean /dev/null
		cmd.Stdin = io.stdin
	}
	return cmd
}

// exitEvent reports that a rank's process ended.
type exitEvent struct {
	rank, pid int
	status    syscall.WaitStatus
	host      string // another host's name, for a rank a daemon ran; "" here
	lost      bool   // never started, or its daemon is gone: its failure is recorded already
}

// startRank starts cmd and, once it is running, reports its exit on exits.
// Start and Wait run on one goroutine locked to its OS thread: Pdeathsig
// fires when the thread that forked the child exits, not the process
// (golang/go#27505), so that thread must outlive the child.
//
// With cpus the rank starts bound to them: a child inherits the affinity
// mask of the thread that forks it and keeps it across exec, so the
// thread takes the rank's mask before the fork. It keeps it until the
// rank has exited, and then ends with its goroutine (still locked) rather
// than return to the runtime's pool with the rank's mask. No shim process
// is started on the way, and Go sizes the rank's GOMAXPROCS from the mask.
func startRank(cmd *exec.Cmd, rank int, cpus []int, exits chan<- exitEvent) (pid int, err error) {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if len(cpus) > 0 {
			set := cpuSet(cpus)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				started <- fmt.Errorf("binding to CPUs %v: %w", cpus, err)
				return // ends the locked thread with its mask
			}
		} else {
			defer runtime.UnlockOSThread()
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait() // the status is in ProcessState; the files are ours, so no copy errors
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		exits <- exitEvent{rank: rank, pid: cmd.Process.Pid, status: ws}
	}()
	if err := <-started; err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
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
