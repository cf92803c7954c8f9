package launcher

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

	"github.com/gompi/gompi/internal/rte"
)

// ReaperEnvVar switches gompirun into the reaper: "<job id>:<session dir>".
const ReaperEnvVar = "GOMPI_REAPER"

// reaperFD is the descriptor of the reaper's pipe in the reaper.
const reaperFD = 3

// reaper is gompirun's end of the pipe to its reaper.
type reaper struct{ w *os.File }

// startReaper starts exe as the job's reaper: a process of its own session
// (a closed terminal's SIGHUP does not reach it, and gompirun's death does
// not kill it) that outlives gompirun. It holds the read end of a pipe of
// its own: gompirun writes one byte to it when it ends in order, having
// stopped its ranks itself; end of file without that byte means gompirun
// was killed, and the reaper ends what is left of the job (RunReaper).
func startReaper(exe string, sess *session) (*reaper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close() // the reaper holds its copy
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ReaperEnvVar+"="+sess.jobID+":"+sess.dir)
	cmd.ExtraFiles = []*os.File{r} // reaperFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	go cmd.Wait() // it ends when gompirun does; collect it if gompirun is still there
	return &reaper{w: w}, nil
}

// release tells the reaper that gompirun ends in order: it only removes
// the job's files then.
func (r *reaper) release() {
	if r == nil {
		return
	}
	_, _ = r.w.Write([]byte{'.'})
	r.w.Close()
}

// RunReaper is the reaper: it waits on its pipe from gompirun (reaperFD).
// If gompirun ended without saying so, it was killed before it could stop
// the job, so the reaper kills every process of the job still running:
// ranks that have not seen their lifeline end yet, and whatever ranks
// started (a wrapper script's other commands, a program run in the
// background), found by the job's variables in their environment. Then it
// removes the job's session directory and shared-memory segments. spec is
// the value of ReaperEnvVar.
func RunReaper(spec string) error {
	jobID, dir, ok := strings.Cut(spec, ":")
	if !ok || jobID == "" || !strings.HasPrefix(dir, "/") {
		return fmt.Errorf("reaper: %s=%q: want JOBID:/session/dir; this mode is internal to gompirun", ReaperEnvVar, spec)
	}
	orderly, err := waitRelease(os.NewFile(reaperFD, "gompirun's reaper pipe"))
	if err != nil {
		return fmt.Errorf("reaper: %w", err)
	}
	var errs []error
	if !orderly {
		errs = append(errs, killJob(jobID, dir))
	}
	return errors.Join(append(errs, rte.RemoveJobFiles(jobID, dir))...)
}

// waitRelease reads the reaper's pipe: true for gompirun's byte, false for
// end of file without it.
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
	marks := [][]byte{[]byte(rte.EnvJobID + "=" + jobID), []byte(rte.EnvSessionDir + "=" + dir)}
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
	return fmt.Errorf("reaper: processes of job %s still run after 100 rounds of SIGKILL: %v", jobID, jobProcesses(marks))
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
