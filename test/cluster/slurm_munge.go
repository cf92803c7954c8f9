package cluster

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// rootProc is a daemon of the root namespace, such as munged: it belongs
// to no host, so the hosts' teardown does not stop it.
type rootProc struct {
	cmd    *exec.Cmd
	copied chan struct{} // closed once its stderr is all in its log
}

// startMunged starts munged in the foreground with every file it uses
// under dir/munge, and returns once its socket accepts clients. As root
// it needs --force, and its defaults (/etc/munge, /run/munge,
// /var/lib/munge, /var/log/munge) are all replaced; in the foreground it
// logs to stderr.
func startMunged(dir string) (*rootProc, error) {
	exe, err := slurmLookPath("munged")
	if err != nil {
		return nil, err
	}
	m := filepath.Join(dir, "munge")
	return startRootProc(exe, filepath.Join(m, "munged.stderr"), "Created socket",
		"--foreground", "--force",
		"--key-file="+filepath.Join(m, "key", "munge.key"),
		"--socket="+filepath.Join(m, "munge.socket"),
		"--pid-file="+filepath.Join(m, "munged.pid"),
		"--seed-file="+filepath.Join(m, "munged.seed"),
		"--log-file="+filepath.Join(m, "munged.log"))
}

// startRootProc starts exe and waits until a line of its stderr, which
// goes to logPath, holds readyLine. Like the hosts' anchors, it gets
// SIGKILL when the test process dies.
func startRootProc(exe, logPath, readyLine string, args ...string) (*rootProc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	p := &rootProc{cmd: cmd, copied: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		defer close(p.copied)
		defer log.Close()
		r := bufio.NewReader(stderr)
		var said []string
		for isReady := false; ; {
			line, err := r.ReadString('\n')
			log.WriteString(line)
			if !isReady && strings.Contains(line, readyLine) {
				isReady = true
				ready <- nil
			} else if !isReady && line != "" {
				said = append(said, strings.TrimSpace(line))
			}
			if err != nil {
				if !isReady {
					ready <- fmt.Errorf("%s ended before it was ready: %s", exe, strings.Join(said, "; "))
				}
				return
			}
		}
	}()
	if err := <-ready; err != nil {
		<-p.copied
		cmd.Wait()
		return nil, err
	}
	return p, nil
}
