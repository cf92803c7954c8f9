package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/gompi/gompi/internal/rte"
)

// ReaperEnvVar switches gompirun into the reaper: "<job id>:<session dir>".
const ReaperEnvVar = "GOMPI_REAPER"

// startReaper starts exe as the job's reaper: a process of its own session
// (a closed terminal's SIGHUP does not reach it, and gompirun's death does
// not kill it) that waits on the lifeline and removes the job's files. The
// ranks remove them too when gompirun dies, but a rank that is gompirun's
// own child dies with it (parent-death signal) before it can.
func startReaper(exe string, sess *session, lifeline *os.File) error {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ReaperEnvVar+"="+sess.jobID+":"+sess.dir)
	cmd.ExtraFiles = []*os.File{lifeline}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // it ends when gompirun does; collect it if gompirun is still there
	return nil
}

// RunReaper is the reaper: it waits for end of file on descriptor 3, the
// lifeline (rte.WaitLifeline), then removes the job's session directory and shared-memory
// segments. spec is the value of ReaperEnvVar.
func RunReaper(spec string) error {
	jobID, dir, ok := strings.Cut(spec, ":")
	if !ok || jobID == "" || !strings.HasPrefix(dir, "/") {
		return fmt.Errorf("reaper: %s=%q: want JOBID:/session/dir; this mode is internal to gompirun", ReaperEnvVar, spec)
	}
	if err := rte.WaitLifeline(lifelineFD); err != nil {
		return fmt.Errorf("reaper: %w", err)
	}
	return rte.RemoveJobFiles(jobID, dir)
}
