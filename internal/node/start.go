package node

import (
	"bytes"
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

// Program is the resolved command the ranks of one app context run.
type Program struct {
	Path string   // absolute or relative path to the executable
	Argv []string // argv[0] as the user typed it, then the arguments
}

// ResolveProgram finds name the way a shell would and explains failures.
// A relative path with a slash is taken from dir, if dir is not empty
// (the ranks' working directory on another host).
func ResolveProgram(dir, name string, args []string) (Program, error) {
	look := name
	if dir != "" && strings.Contains(name, "/") && !filepath.IsAbs(name) {
		look = filepath.Join(dir, name)
	}
	path, err := exec.LookPath(look)
	if err != nil {
		switch {
		case errors.Is(err, exec.ErrDot):
			return Program{}, fmt.Errorf("program %q was found only in the current directory through a relative $PATH entry; run it as ./%s", name, name)
		case errors.Is(err, exec.ErrNotFound):
			return Program{}, fmt.Errorf("program %q not found in $PATH", name)
		case errors.Is(err, fs.ErrNotExist):
			return Program{}, fmt.Errorf("program %q does not exist", name)
		case errors.Is(err, syscall.EISDIR):
			return Program{}, fmt.Errorf("program %q is a directory", name)
		case errors.Is(err, fs.ErrPermission):
			return Program{}, fmt.Errorf("program %q is not executable", name)
		}
		return Program{}, fmt.Errorf("cannot run program %q: %w", name, err)
	}
	if err := checkInterpreter(path); err != nil {
		return Program{}, fmt.Errorf("program %q: %w", name, err)
	}
	return Program{Path: path, Argv: append([]string{name}, args...)}, nil
}

// checkInterpreter checks the interpreter a script's "#!" line names:
// exec reports a missing one as the script's own ENOENT. Only an absolute
// interpreter is checked; a relative one depends on the rank's directory.
func checkInterpreter(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // unreadable (execute-only): exec will say
	}
	defer f.Close()
	head := make([]byte, 256) // what Linux reads of the "#!" line
	n, _ := io.ReadFull(f, head)
	line, ok := bytes.CutPrefix(head[:n], []byte("#!"))
	if !ok {
		return nil
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return nil
	}
	interp := fields[0]
	st, err := os.Stat(interp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("its interpreter %s does not exist", interp)
	case err != nil:
		return fmt.Errorf("its interpreter %s: %w", interp, err)
	case st.IsDir():
		return fmt.Errorf("its interpreter %s is a directory", interp)
	case unix.Access(interp, unix.X_OK) != nil:
		return fmt.Errorf("its interpreter %s is not executable", interp)
	}
	return nil
}

// RankIO is the standard files of one rank; a nil Stdin means /dev/null.
type RankIO struct {
	Stdin          *os.File
	Stdout, Stderr *os.File
}

// Command builds the exec.Cmd of one rank.
func (p Program) Command(env []string, io RankIO) *exec.Cmd {
	cmd := &exec.Cmd{
		Path:   p.Path,
		Args:   p.Argv,
		Env:    env,
		Stdout: io.Stdout,
		Stderr: io.Stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true, // own group: stopped as a whole, and no terminal signals
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if io.Stdin != nil { // a nil *os.File in the interface would not mean /dev/null
		cmd.Stdin = io.Stdin
	}
	return cmd
}

// StartRank starts cmd and, once it is running, calls exited with its
// pid and wait status when it has exited.
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
func StartRank(cmd *exec.Cmd, cpus []int, exited func(pid int, status syscall.WaitStatus)) (pid int, err error) {
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
		exited(cmd.Process.Pid, ws)
	}()
	if err := <-started; err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
}
