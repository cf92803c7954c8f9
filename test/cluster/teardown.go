package cluster

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// killTimeout bounds how long teardown waits for killed processes to die;
// only one stuck in the kernel takes that long.
const killTimeout = 10 * time.Second

// down kills every process in the cluster's namespaces, which frees the
// namespaces and every mount in them, removes the state directory and
// gives the subnet back. It copes with a cluster that was only partly
// built.
func (c *Cluster) down() error {
	var anchors []*anchor
	if c.bridge != nil {
		anchors = append(anchors, c.bridge)
	}
	for _, h := range c.hosts {
		if h.anchor != nil {
			anchors = append(anchors, h.anchor)
		}
	}
	nets := make(map[string]bool)
	for _, a := range anchors {
		if a.net != "" {
			nets[a.net] = true
		}
	}
	var errs []error
	killErr := killAll(nets)
	if killErr != nil {
		errs = append(errs, killErr)
	}
	for _, d := range c.daemonList() {
		d.cmd.Process.Kill()
		if killErr == nil {
			<-d.copied // the pipe closes when the daemon and all it forked are gone
		}
		d.cmd.Wait()
	}
	for _, a := range anchors {
		// killAll has killed the anchors unless it failed or an anchor's
		// setup did (then its namespace was never known): make sure, as
		// waiting for a live anchor would never end.
		if !a.reaped {
			a.cmd.Process.Kill()
		}
		a.wait() // its exit status is SIGKILL's
	}
	if c.state != "" {
		if err := os.RemoveAll(c.state); err != nil {
			errs = append(errs, err)
		}
	}
	if c.subnet != nil {
		if err := c.subnet.release(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// killAll sends SIGKILL to every process in nets until none is left:
// processes forked while a round is killed are found by the next one.
// Signals go through pidfds checked to be in nets, so a PID reused by
// another process is never hit.
func killAll(nets map[string]bool) error {
	deadline := time.Now().Add(killTimeout)
	for {
		in, err := procsIn(nets)
		if err != nil {
			return fmt.Errorf("listing the hosts' processes: %w", err)
		}
		var fds, pids []int
		for _, ps := range in {
			for _, pid := range ps {
				fd, err := unix.PidfdOpen(pid, 0)
				if err != nil {
					continue // gone
				}
				if !nets[netOf(pid)] {
					unix.Close(fd)
					continue
				}
				if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && err != unix.ESRCH {
					unix.Close(fd)
					return fmt.Errorf("killing process %d (%s): %w", pid, cmdline(pid), err)
				}
				fds = append(fds, fd)
				pids = append(pids, pid)
			}
		}
		if len(fds) == 0 {
			return nil
		}
		err = waitExited(fds, deadline)
		for _, fd := range fds {
			unix.Close(fd)
		}
		if err != nil {
			return fmt.Errorf("processes %v still run in the hosts %v after SIGKILL: %w", pids, killTimeout, err)
		}
	}
}

// waitExited waits until every pidfd in fds reports its process's exit.
func waitExited(fds []int, deadline time.Time) error {
	pfds := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	for pending := len(fds); pending > 0; {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms <= 0 {
			return errors.New("timed out")
		}
		if _, err := unix.Poll(pfds, ms); err != nil && err != unix.EINTR {
			return err
		}
		for i := range pfds {
			if pfds[i].Fd >= 0 && pfds[i].Revents != 0 {
				pfds[i].Fd = -1 // poll skips negative descriptors
				pending--
			}
		}
	}
	return nil
}
