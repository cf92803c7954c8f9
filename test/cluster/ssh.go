package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// sshd is where Debian's openssh-server puts the daemon; sshd insists on
// being started by its absolute path.
const sshd = "/usr/sbin/sshd"

// sshAvailable says what Options.SSH lacks on this machine.
func sshAvailable() error {
	if _, err := os.Stat(sshd); err != nil {
		return fmt.Errorf("cluster: Options.SSH needs %s (Debian package openssh-server): %w", sshd, err)
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("cluster: Options.SSH needs %s (Debian package openssh-client): %w", tool, err)
		}
	}
	return nil
}

// sshdConfig is one host's sshd_config: %[1]s the address, %[2]s the
// host's directory, %[3]s the cluster's ssh directory.
//
// StrictModes is off because the keys live under the world-writable
// /tmp. MaxStartups and MaxSessions are raised because the default
// (10:30:100) drops some of a launcher's parallel connections at random.
// SHLVL=1 makes bash take the session's shell for a nested one, so that
// it skips the user's ~/.bashrc (root's runs pyenv init on this machine
// kind: 0.45 s per ssh command instead of 0.3 s, and seconds under load).
const sshdConfig = `ListenAddress %[1]s
HostKey %[2]s/ssh_host_ed25519_key
PidFile %[2]s/sshd.pid
AuthorizedKeysFile %[3]s/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 200
MaxSessions 200
SetEnv SHLVL=1
`

// sshConfig is the client's configuration; %[1]s is the ssh directory.
const sshConfig = `Host *
	IdentityFile %[1]s/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile %[1]s/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
`

// sshWrapper is the agent when the hosts run sshd. It refuses to run
// outside the hosts: there, h1..hN would go to DNS and their addresses to
// the default route. %[1]s is the ssh directory, %[2]s the hosts' network
// namespaces, a case list, %[3]s the client.
const sshWrapper = `#!/bin/sh
# ssh to the hosts of the gompi test cluster in %[1]s
case $(readlink /proc/self/ns/net) in
%[2]s) ;;
*) echo "$0: run it inside one of the cluster's hosts" >&2; exit 255 ;;
esac
exec %[3]s -F %[1]s/ssh_config "$@"
`

// daemon is a long-lived process that belongs to a host, such as sshd.
type daemon struct {
	host   string
	exe    string // its executable, to recognise the processes it forks
	cmd    *exec.Cmd
	ready  chan error    // receives once: nil when it said it is ready
	copied chan struct{} // closed once its stderr is all in its log
}

// startSSH starts one sshd per host, with generated keys, and makes Agent
// a real ssh that reaches them.
func (c *Cluster) startSSH() error {
	dir := filepath.Join(c.state, "ssh")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	clientKey := filepath.Join(dir, "id_ed25519")
	if err := keygen(clientKey); err != nil {
		return err
	}
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		return err
	}
	var known, nets strings.Builder
	for i, h := range c.hosts {
		hdir := filepath.Join(dir, h.name)
		if err := os.Mkdir(hdir, 0o700); err != nil {
			return err
		}
		if err := keygen(filepath.Join(hdir, "ssh_host_ed25519_key")); err != nil {
			return err
		}
		hostPub, err := os.ReadFile(filepath.Join(hdir, "ssh_host_ed25519_key.pub"))
		if err != nil {
			return err
		}
		f := strings.Fields(string(hostPub))
		fmt.Fprintf(&known, "%s,%s %s %s\n", h.name, h.addr, f[0], f[1])
		if i > 0 {
			nets.WriteString("|")
		}
		nets.WriteString(strings.NewReplacer("[", "\\[", "]", "\\]").Replace(h.anchor.net))
		if err := os.WriteFile(filepath.Join(hdir, "sshd_config"), []byte(fmt.Sprintf(sshdConfig, h.addr, hdir, dir)), 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(known.String()), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "ssh_config"), []byte(fmt.Sprintf(sshConfig, dir)), 0o600); err != nil {
		return err
	}
	// sshd's privilege-separation directory. It is left behind: another
	// cluster's sshd may need it, and openssh-server's service makes it
	// too.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return err
	}
	var errs []error
	for _, h := range c.hosts {
		if err := c.startDaemon(h, "Server listening on ", sshd, "-D", "-e", "-f", filepath.Join(dir, h.name, "sshd_config")); err != nil {
			errs = append(errs, err)
			break
		}
	}
	for _, d := range c.daemonList() {
		if err := <-d.ready; err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	client, err := exec.LookPath("ssh")
	if err != nil {
		return err
	}
	return os.WriteFile(c.agent, []byte(fmt.Sprintf(sshWrapper, dir, nets.String(), client)), 0o755)
}

func keygen(path string) error {
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gompi-cluster", "-f", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh-keygen -f %s: %v: %s", path, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// startDaemon starts exe on h; it is ready when a line of its stderr
// holds readyLine. Like an anchor, it gets SIGKILL when the test process
// dies.
func (c *Cluster) startDaemon(h *host, readyLine, exe string, args ...string) error {
	log, err := os.Create(filepath.Join(c.state, filepath.Base(exe)+"-"+h.name+".log"))
	if err != nil {
		return err
	}
	cmd := c.Command(h.name, exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		log.Close()
		return fmt.Errorf("%s: starting %s: %w", h.name, exe, err)
	}
	d := &daemon{host: h.name, exe: exe, cmd: cmd, ready: make(chan error, 1), copied: make(chan struct{})}
	c.mu.Lock()
	c.daemons = append(c.daemons, d)
	c.mu.Unlock()
	go func() {
		defer close(d.copied)
		defer log.Close()
		r := bufio.NewReader(stderr)
		var said []string
		for ready := false; ; {
			line, err := r.ReadString('\n')
			log.WriteString(line)
			if !ready && strings.Contains(line, readyLine) {
				ready = true
				d.ready <- nil
			} else if !ready && line != "" {
				said = append(said, strings.TrimSpace(line))
			}
			if err != nil {
				if !ready {
					d.ready <- fmt.Errorf("%s: %s ended before it was ready: %s", h.name, exe, strings.Join(said, "; "))
				}
				return
			}
		}
	}()
	return nil
}

// isDaemon says whether pid is one of the hosts' daemons or a process of
// a daemon's own program forked by one (sshd's per-connection processes,
// which outlive their client by a moment).
func (c *Cluster) isDaemon(pid int) bool {
	daemons := c.daemonList()
	for p := pid; p > 1; p = parent(p) {
		exe, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/exe")
		if err != nil {
			return false
		}
		ours := false
		for _, d := range daemons {
			if d.cmd.Process.Pid == p {
				return true
			}
			ours = ours || d.exe == exe
		}
		if !ours {
			return false
		}
	}
	return false
}

// daemonList returns the daemons started so far.
func (c *Cluster) daemonList() []*daemon {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.daemons)
}

// parent returns pid's parent, 0 if it is gone.
func parent(pid int) int {
	ppid, _ := stat(pid)
	return ppid
}
