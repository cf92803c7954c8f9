package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// program is the resolved command every rank runs.
type program struct {
	path string   // absolute or relative path to the executable
	argv []string // argv[0] as the user typed it, then the arguments
}

// resolveProgram finds name the way a shell would and explains failures.
func resolveProgram(name string, args []string) (program, error) {
	path, err := exec.LookPath(name)
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

// rankIO is the standard files of one rank; nil Stdin means /dev/null.
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

// failure is why the job stops and the status gompirun exits with.
type failure struct {
	msg  string // the line to print, without "gompirun: "
	code int
	// A rank's failure: the rank (-1 for the job's own: a timeout, a
	// signal), its pid, what it did, and the peers it saw fail first, when
	// it failed because of them.
	rank, pid int
	what      string
	blames    []int
}

// follower describes a failure that came after the cause.
func (f *failure) follower() string {
	s := fmt.Sprintf("rank %d (pid %d) %s", f.rank, f.pid, f.what)
	if len(f.blames) > 0 {
		peers := make([]string, len(f.blames))
		for i, p := range f.blames {
			peers[i] = strconv.Itoa(p)
		}
		s += fmt.Sprintf(" (after it saw rank %s fail)", strings.Join(peers, ", "))
	}
	return s
}

// classify decides whether a rank's exit fails the job: a non-zero status,
// a signal, or exit 0 after connecting to the job server but without
// calling Finalize. A rank that never connected and exits 0 is fine.
func classify(ev exitEvent, connected, finalized bool) (failure, bool) {
	ws := ev.status
	switch {
	case ws.Signaled():
		core := ""
		if ws.CoreDump() {
			core = " (core dumped)"
		}
		return rankFailure(ev, fmt.Sprintf("killed by signal %s%s", signalName(ws.Signal()), core), 128+int(ws.Signal())), true
	case ws.ExitStatus() != 0:
		return rankFailure(ev, fmt.Sprintf("exited with status %d", ws.ExitStatus()), ws.ExitStatus()), true
	case connected && !finalized:
		return rankFailure(ev, "exited without calling Finalize", 1), true
	}
	return failure{}, false
}

// jobFailure is a failure of the job as a whole: a timeout, a signal, a
// rank that could not start.
func jobFailure(msg string, code int) failure { return failure{msg: msg, code: code, rank: -1} }

func rankFailure(ev exitEvent, what string, code int) failure {
	return failure{
		msg:  fmt.Sprintf("rank %d (pid %d) %s; stopping the job", ev.rank, ev.pid, what),
		code: code, rank: ev.rank, pid: ev.pid, what: what,
	}
}

func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "signal " + strconv.Itoa(int(sig))
}

// exited reports whether the child pid has ended, reaped or not: then a
// signal gompirun sends it now is not what ends it. WNOWAIT leaves the
// reaping to the rank's own waiting goroutine.
func exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != nil || info.Signo != 0 // ECHILD: reaped already
}

// signalGroup sends sig to the process group of a rank (its pid: ranks are
// started with Setpgid), reaching any children it left in the group.
// ESRCH means the group is already gone.
func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %s to process group %d: %w", signalName(sig), pid, err)
	}
	return nil
}
