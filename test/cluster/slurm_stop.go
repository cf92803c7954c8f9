package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// stop ends the jobs, stops the slurmds and slurmctld, kills what they
// leave, stops munged and removes the Slurm directory and logs. It
// copes with a Slurm that only partly started, fails if a Slurm or
// munge process survives, and returns what it had to kill.
func (s *Slurm) stop() ([]string, error) {
	var errs []error
	var killed []string
	if len(s.daemons) > 0 && running(s.daemons[0].cmd.Process.Pid) {
		var err error
		if killed, err = s.endJobs(); err != nil {
			errs = append(errs, err)
		}
	}
	procs := make([]int, len(s.daemons))
	for i, d := range s.daemons {
		procs[i] = d.cmd.Process.Pid
	}
	if err := terminate(procs); err != nil {
		errs = append(errs, fmt.Errorf("stopping slurmctld and slurmd: %w", err))
	}
	// What the daemons leave: slurmscriptd, a step launched meanwhile.
	more, err := s.killJobProcs(slurmExes())
	if err != nil {
		errs = append(errs, err)
	}
	killed = append(killed, more...)
	for _, d := range s.daemons {
		select {
		case <-d.copied:
		case <-time.After(killTimeout):
			errs = append(errs, fmt.Errorf("%s: %s's stderr is still open after it exited", d.host, d.exe))
		}
		d.cmd.Wait()
	}
	if s.munged != nil {
		if err := terminate([]int{s.munged.cmd.Process.Pid}); err != nil {
			errs = append(errs, fmt.Errorf("stopping munged: %w", err))
		}
		<-s.munged.copied
		s.munged.cmd.Wait()
	}
	left, err := s.survivors()
	if err != nil {
		errs = append(errs, err)
	}
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("processes of Slurm survive: %s", strings.Join(left, "; ")))
	}
	if err := errors.Join(errs...); err != nil {
		return killed, fmt.Errorf("%w\n%s", err, s.logTails())
	}
	// The daemons are gone: the cluster's own teardown has nothing to do
	// with them, and Leftovers must not take a reused PID for one.
	s.c.daemons = slices.DeleteFunc(s.c.daemons, func(d *daemon) bool { return slices.Contains(s.daemons, d) })
	rm := []string{s.dir}
	for _, d := range s.daemons {
		rm = append(rm, s.logOf(d))
	}
	for _, path := range rm {
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	return killed, errors.Join(errs...)
}

// endJobs ends every job and waits until squeue lists none, not even a
// completing one, so that slurmd stops with nothing to wait for. It
// kills the steps' tasks itself: slurmstepd then reports their end to
// srun, which exits, and ends the step at once, where scancel would
// wait KillWait for tasks that ignore SIGTERM and slurmd then seconds
// more. scancel ends the rest (allocations without steps). After
// slurmDrainTimeout it kills the slurmstepds too. It returns what it
// killed.
func (s *Slurm) endJobs() ([]string, error) {
	out, err := s.client("squeue", "--noheader", "--format=%A")
	if err != nil || strings.TrimSpace(out) == "" {
		return nil, err
	}
	killed, err := s.killJobProcs(nil)
	if err != nil {
		return killed, err
	}
	// Every job is in the one partition; a filter, unlike job ids,
	// is no error for the jobs that ended meanwhile.
	if _, err := s.client("scancel", "--partition="+slurmPartition); err != nil {
		return killed, err
	}
	for deadline := time.Now().Add(slurmDrainTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		out, err := s.client("squeue", "--noheader", "--format=%A")
		if err != nil {
			return killed, err
		}
		if strings.TrimSpace(out) == "" {
			return killed, nil
		}
	}
	more, err := s.killJobProcs(exesOf("slurmstepd"))
	return append(killed, more...), err
}

// running says whether pid, a child of the test process that it has not
// reaped, still runs: a zombie does not.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// terminate sends SIGTERM to pids, children of the test process that it
// has not reaped (so their PIDs are not reused), and SIGKILL to those
// still alive slurmStopTimeout later; it returns once all have exited.
func terminate(pids []int) error {
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // reaped: a daemon that failed to start
		}
		fds = append(fds, fd)
	}
	signal := func(sig unix.Signal) error {
		for _, fd := range fds {
			if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil && err != unix.ESRCH {
				return err
			}
		}
		return nil
	}
	if err := signal(unix.SIGTERM); err != nil {
		return err
	}
	if waitExited(slices.Clone(fds), time.Now().Add(slurmStopTimeout)) == nil {
		return nil
	}
	if err := signal(unix.SIGKILL); err != nil {
		return err
	}
	return waitExited(slices.Clone(fds), time.Now().Add(killTimeout))
}

// slurmExes are the programs whose processes the Slurm teardown kills
// on the hosts, by executable: slurmctld's and slurmd's forks
// (slurmscriptd is one) and slurmstepd.
func slurmExes() map[string]bool { return exesOf("slurmctld", "slurmd", "slurmstepd") }

// daemonExes are the daemons' own programs, without slurmstepd.
func daemonExes() map[string]bool { return exesOf("slurmctld", "slurmd") }

// exesOf maps the executables of the named programs, as /proc/PID/exe
// reads them.
func exesOf(names ...string) map[string]bool {
	exes := make(map[string]bool)
	for _, name := range names {
		if path, err := slurmLookPath(name); err == nil {
			if real, err := filepath.EvalSymlinks(path); err == nil {
				path = real
			}
			exes[path] = true
		}
	}
	return exes
}

// slurmProcs lists the hosts' processes that run one of exes.
func (s *Slurm) slurmProcs(exes map[string]bool) ([]int, error) {
	nets := make(map[string]bool)
	for _, h := range s.c.hosts {
		nets[h.anchor.net] = true
	}
	in, err := procsIn(nets)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, ps := range in {
		for _, pid := range ps {
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exes[exe] {
				pids = append(pids, pid)
			}
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// killJobProcs sends SIGKILL to every process under a slurmstepd (the
// jobs' tasks) and to every process that runs one of exes. It picks
// them all before it kills one, so that no task is orphaned first, then
// waits for them and returns what it killed.
func (s *Slurm) killJobProcs(exes map[string]bool) ([]string, error) {
	nets := make(map[string]bool)
	for _, h := range s.c.hosts {
		nets[h.anchor.net] = true
	}
	in, err := procsIn(nets)
	if err != nil {
		return nil, err
	}
	stepd := exesOf("slurmstepd")
	exeOf := func(pid int) string {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		return exe
	}
	underStepd := func(pid int) bool {
		for p := parent(pid); p > 1; p = parent(p) {
			if stepd[exeOf(p)] {
				return true
			}
		}
		return false
	}
	var fds, pids []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, ps := range in {
		for _, pid := range ps {
			if !exes[exeOf(pid)] && !underStepd(pid) {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue // gone
			}
			fds = append(fds, fd)
			pids = append(pids, pid)
		}
	}
	var killed []string
	for i, fd := range fds {
		// The pidfd pins the process: check it is still on a host.
		if !nets[netOf(pids[i])] {
			continue
		}
		desc := fmt.Sprintf("process %d: %s", pids[i], cmdline(pids[i]))
		if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && err != unix.ESRCH {
			return killed, fmt.Errorf("killing %s: %w", desc, err)
		}
		killed = append(killed, desc)
	}
	if err := waitExited(slices.Clone(fds), time.Now().Add(killTimeout)); err != nil {
		return killed, fmt.Errorf("processes of Slurm and its jobs still run after SIGKILL: %w", err)
	}
	slices.Sort(killed)
	return killed, nil
}

// survivors lists the Slurm and munge processes still alive.
func (s *Slurm) survivors() ([]string, error) {
	pids, err := s.slurmProcs(slurmExes())
	var left []string
	for _, pid := range pids {
		left = append(left, fmt.Sprintf("process %d: %s", pid, cmdline(pid)))
	}
	if s.munged != nil && s.munged.cmd.ProcessState == nil {
		left = append(left, fmt.Sprintf("munged %d", s.munged.cmd.Process.Pid))
	}
	return left, err
}

// logOf is where the cluster keeps d's stderr.
func (s *Slurm) logOf(d *daemon) string {
	return filepath.Join(s.c.state, filepath.Base(d.exe)+"-"+d.host+".log")
}

// logTails returns the last lines of the daemons' logs, for errors.
func (s *Slurm) logTails() string {
	var b strings.Builder
	paths := []string{filepath.Join(s.dir, "munge", "munged.stderr")}
	for _, d := range s.daemons {
		paths = append(paths, s.logOf(d))
	}
	for _, path := range paths {
		text, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		fmt.Fprintf(&b, "--- %s (last lines):\n%s\n", path, strings.Join(lines[max(0, len(lines)-8):], "\n"))
	}
	return b.String()
}
