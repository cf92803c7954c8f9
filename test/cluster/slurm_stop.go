package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// stop cancels the jobs, stops the slurmds and slurmctld, kills the
// slurmstepds they leave (they ignore SIGTERM), stops munged and removes
// the Slurm directory and logs. It copes with a Slurm that only partly
// started, and fails if a Slurm or munge process survives.
func (s *Slurm) stop() error {
	var errs []error
	if len(s.daemons) > 0 && s.daemons[0].cmd.ProcessState == nil {
		if err := s.cancelJobs(); err != nil {
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
	strays, err := s.killStrays()
	if err != nil {
		errs = append(errs, err)
	}
	if len(strays) > 0 {
		s.c.tb.Logf("cluster: Slurm teardown killed what its daemons left: %s", strings.Join(strays, "; "))
	}
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
	if left, err := s.survivors(); err != nil || len(left) > 0 {
		errs = append(errs, errors.Join(err, fmt.Errorf("Slurm processes survive: %s", strings.Join(left, "; "))))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w\n%s", err, s.logTails())
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
	return errors.Join(errs...)
}

// cancelJobs cancels every job and waits until squeue lists none, not
// even completing ones, so that no step is cut off from its slurmd.
func (s *Slurm) cancelJobs() error {
	deadline := time.Now().Add(slurmDrainTimeout)
	cancelled := false
	for {
		out, err := s.client("squeue", "--noheader", "--format=%A %T")
		if err != nil {
			return err
		}
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				ids = append(ids, f[0])
			}
		}
		if len(ids) == 0 {
			return nil
		}
		if !cancelled {
			if _, err := s.client("scancel", ids...); err != nil {
				return err
			}
			cancelled = true
		}
		if time.Now().After(deadline) {
			// What is left is killed with the daemons.
			s.c.tb.Logf("cluster: Slurm teardown: jobs still listed %v after scancel: %q", slurmDrainTimeout, strings.TrimSpace(out))
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
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
func (s *Slurm) daemonExes() map[string]bool { return exesOf("slurmctld", "slurmd") }

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

// slurmProcs lists the hosts' processes that run a Slurm daemon's
// program.
func (s *Slurm) slurmProcs() ([]int, error) {
	nets := make(map[string]bool)
	for _, h := range s.c.hosts {
		nets[h.anchor.net] = true
	}
	in, err := procsIn(nets)
	if err != nil {
		return nil, err
	}
	exes := slurmExes()
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

// killStrays sends SIGKILL to the hosts' Slurm processes, once the
// daemons are gone, and waits for them; it returns what it killed.
func (s *Slurm) killStrays() ([]string, error) {
	pids, err := s.slurmProcs()
	if err != nil {
		return nil, err
	}
	var killed []string
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	exes := slurmExes()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone
		}
		// The pidfd pins the process: check it is still the one listed.
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || !exes[exe] {
			unix.Close(fd)
			continue
		}
		desc := fmt.Sprintf("process %d: %s", pid, cmdline(pid))
		if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && err != unix.ESRCH {
			unix.Close(fd)
			return killed, fmt.Errorf("killing %s: %w", desc, err)
		}
		fds = append(fds, fd)
		killed = append(killed, desc)
	}
	if err := waitExited(slices.Clone(fds), time.Now().Add(killTimeout)); err != nil {
		return killed, fmt.Errorf("Slurm processes still run after SIGKILL: %w", err)
	}
	return killed, nil
}

// survivors lists the Slurm and munge processes still alive.
func (s *Slurm) survivors() ([]string, error) {
	pids, err := s.slurmProcs()
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
