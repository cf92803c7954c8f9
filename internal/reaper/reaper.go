// Package reaper is the watchdog every gompi job runs on each of its
// hosts: a process of its own session that outlives gompirun (or the
// host's daemon) and, if that is killed before it could stop the job,
// kills what is left of the job there and removes the job's files.
//
// It is its own small program, gompi-reaper, installed beside gompirun:
// a job starts one on every host, and a program that links only the
// standard library starts on a fifth of the CPU time that gompirun's 28 MB
// take. Where gompi-reaper is missing (gompirun built alone), gompirun
// runs itself in the reaper's mode; see Exe.
package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobfiles"
)

// EnvVar gives the reaper its job: "<job id>:<session dir>". In gompirun
// it switches to the reaper's mode.
const EnvVar = "GOMPI_REAPER"

// Name is the reaper's program, looked for beside gompirun.
const Name = "gompi-reaper"

// fd is the descriptor of the reaper's pipe in the reaper.
const fd = 3

// Exe is the program to start as the reaper of a gompirun whose
// executable is self: gompi-reaper in the same directory, or self (which
// must then run Run when EnvVar is set) if there is none.
func Exe(self string) string {
	if p := Beside(self, Name); p != "" {
		return p
	}
	return self
}

// Beside is the executable file name in the directory of the executable
// self, or "" if there is none: how gompirun finds the helper programs
// installed with it (gompi-reaper, gompi-daemon).
func Beside(self, name string) string {
	p := filepath.Join(filepath.Dir(self), name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// Reaper is the starter's end of the pipe to its reaper.
type Reaper struct{ w *os.File }

// Start starts exe as the reaper of the job jobID whose session directory
// on this host is dir: a process of its own session (a closed terminal's
// SIGHUP does not reach it, and its starter's death does not kill it)
// that outlives its starter. It holds the read end of a pipe of its own:
// the starter writes one byte to it when it ends in order, having stopped
// its ranks itself (Release); end of file without that byte means the
// starter was killed, and the reaper ends what is left of the job (Run).
func Start(exe, jobID, dir string) (*Reaper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close() // the reaper holds its copy
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvVar+"="+jobID+":"+dir)
	cmd.ExtraFiles = []*os.File{r} // fd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	go cmd.Wait() // it ends when its starter does; collect it if the starter is still there
	return &Reaper{w: w}, nil
}

// Release tells the reaper that its starter ends in order: it only
// removes the job's files then. A nil Reaper does nothing.
func (r *Reaper) Release() {
	if r == nil {
		return
	}
	_, _ = r.w.Write([]byte{'.'})
	r.w.Close()
}

// Run is the reaper: it waits on its pipe from its starter (fd). If the
// starter ended without saying so, it was killed before it could stop
// the job, so the reaper kills every process of the job still running:
// ranks that have not seen their lifeline end yet, and whatever ranks
// started (a wrapper script's other commands, a program run in the
// background), found by the job's variables in their environment. Then it
// removes the job's session directory and shared-memory segments. spec is
// the value of EnvVar.
func Run(spec string) error {
	jobID, dir, ok := strings.Cut(spec, ":")
	if !ok || jobID == "" || !strings.HasPrefix(dir, "/") {
		return fmt.Errorf("%s=%q: want JOBID:/session/dir; gompirun starts the reaper with it", EnvVar, spec)
	}
	orderly, err := waitRelease(os.NewFile(fd, "the reaper's pipe"))
	if err != nil {
		return err
	}
	var errs []error
	if !orderly {
		errs = append(errs, killJob(jobID, dir))
	}
	return errors.Join(append(errs, jobfiles.Remove(jobID, dir))...)
}

// waitRelease reads the reaper's pipe: true for its starter's byte, false
// for end of file without it.
func waitRelease(f *os.File) (bool, error) {
	var b [1]byte
	for {
		n, err := f.Read(b[:])
		switch {
		case n > 0:
			return true, nil
		case errors.Is(err, io.EOF):
			return false, nil
		case err != nil:
			return false, err
		}
	}
}

// killJob sends SIGKILL to every process whose environment names the job
// and its session directory, as gompirun gives every rank, until a look
// finds none (a process may fork while it is being looked for).
func killJob(jobID, dir string) error {
	marks := [][]byte{[]byte(jobenv.JobID + "=" + jobID), []byte(jobenv.SessionDir + "=" + dir)}
	for range 100 {
		pids := jobProcesses(marks)
		if len(pids) == 0 {
			return nil
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond) // let the killed go before looking again
	}
	return fmt.Errorf("processes of job %s still run after 100 rounds of SIGKILL: %v", jobID, jobProcesses(marks))
}

// jobProcesses lists the processes, other than this one, whose environment
// holds each of marks as a whole entry.
func jobProcesses(marks [][]byte) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil { // gone, or not ours to read
			continue
		}
		if hasEntries(env, marks) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hasEntries reports whether the NUL-separated environment env holds each
// of marks as an entry.
func hasEntries(env []byte, marks [][]byte) bool {
	found := make([]bool, len(marks))
	left := len(marks)
	for e := range bytes.SplitSeq(env, []byte{0}) {
		for i, m := range marks {
			if !found[i] && bytes.Equal(e, m) {
				found[i] = true
				left--
			}
		}
	}
	return left == 0
}
