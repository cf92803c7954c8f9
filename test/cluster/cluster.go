package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Options tunes a cluster. The zero value is what most tests want.
type Options struct {
	// SSH runs a real sshd in every host and makes Agent a real ssh
	// client configured to reach them (keys and known hosts generated,
	// no prompts). The client works inside the hosts only. Up skips the
	// test when /usr/sbin/sshd (Debian package openssh-server) is
	// missing.
	SSH bool

	// PrivateTmp gives every host its own empty /tmp, as real hosts
	// have, so that files and unix sockets a job puts in os.TempDir()
	// on one host are not found on another. The cluster's state
	// directory and the test binary's directory (go test builds it
	// under /tmp) stay shared; other programs a job runs must be on a
	// path every host sees, such as the repository. Leftovers then
	// lists what is left in each host's /tmp too.
	PrivateTmp bool
}

// Cluster is a set of simulated hosts h1..hN. Its methods are safe for
// concurrent use.
type Cluster struct {
	tb      testing.TB
	state   string // the cluster's files: hosts, the agent, the hostfile, anchor logs
	subnet  *subnetLock
	nsenter string
	bridge  *anchor
	hosts   []*host
	agent   string
	mu      sync.Mutex
	daemons []*daemon // guarded by mu: a daemon may be started after Up
	private bool      // each host has its own /tmp
	kept    []string  // then the directories under /tmp that stay shared
	isDown  atomic.Bool
}

type host struct {
	name, addr string
	anchor     *anchor
}

// hostNS are the namespaces that make a host; the PID namespace stays
// shared so that the test sees every process of every host.
var hostNS = []string{"--net", "--uts", "--ipc", "--mount", "--propagation", "private"}

// Up builds n hosts named h1..hn, each with its own network namespace and
// address (10.77.X.i/24, X chosen per cluster), hostname, IPC, /dev/shm,
// /sys and /etc/hosts, and tears them down when the test ends (see
// Leftovers for what a test can check before that). It skips the test
// when this machine cannot build hosts (see Available) and fails it when
// building them fails.
func Up(tb testing.TB, n int, opts Options) *Cluster {
	tb.Helper()
	if n < 1 || n > 253 {
		tb.Fatalf("cluster: %d hosts asked for: a cluster has 1 to 253 hosts", n)
	}
	if err := Available(); err != nil {
		tb.Skip(err)
	}
	if opts.SSH {
		if err := sshAvailable(); err != nil {
			tb.Skip(err)
		}
	}
	start := time.Now()
	c := &Cluster{tb: tb}
	tb.Cleanup(func() {
		start := time.Now()
		c.isDown.Store(true)
		if err := c.down(); err != nil {
			tb.Errorf("cluster: teardown: %v", err)
			return
		}
		tb.Logf("cluster: %d hosts down in %v", len(c.hosts), time.Since(start).Round(time.Millisecond))
	})
	if err := c.build(n, opts); err != nil {
		tb.Fatalf("cluster: building %d hosts: %v", n, err)
	}
	pids := make([]string, len(c.hosts))
	for i, h := range c.hosts {
		pids[i] = h.name + "=" + strconv.Itoa(h.anchor.pid)
	}
	tb.Logf("cluster: %d hosts up in %v: 10.77.%d.0/24, anchors %s, state %s", n,
		time.Since(start).Round(time.Millisecond), c.subnet.x, strings.Join(pids, " "), c.state)
	return c
}

func (c *Cluster) build(n int, opts Options) error {
	var err error
	if c.nsenter, err = exec.LookPath("nsenter"); err != nil {
		return err
	}
	if c.subnet, err = claimSubnet(); err != nil {
		return err
	}
	removeStaleStates()
	if c.state, err = os.MkdirTemp("", statePrefix+strconv.Itoa(os.Getpid())+"-"); err != nil {
		return err
	}
	etcHosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	for i := 1; i <= n; i++ {
		h := &host{name: "h" + strconv.Itoa(i), addr: fmt.Sprintf("10.77.%d.%d", c.subnet.x, i)}
		c.hosts = append(c.hosts, h)
		etcHosts += h.addr + "\t" + h.name + "\n"
	}
	if err := os.WriteFile(filepath.Join(c.state, "hosts"), []byte(etcHosts), 0o644); err != nil {
		return err
	}
	if c.private = opts.PrivateTmp; c.private {
		if err := c.keepShared(); err != nil {
			return err
		}
	}
	if err := c.startAnchors(opts); err != nil {
		return err
	}
	if err := c.cable(); err != nil {
		return err
	}
	if err := c.writeAgent(); err != nil {
		return err
	}
	if opts.SSH {
		return c.startSSH()
	}
	return nil
}

// statePrefix starts the name of a state directory, followed by the PID
// of the test process that owns it.
const statePrefix = "gompi-cluster-"

// removeStaleStates removes the state directories of test processes that
// died without tearing their clusters down (killed at a timeout): a
// process's anchors die with it, its directory would stay. It is a best
// effort: a directory it cannot remove harms no cluster.
func removeStaleStates() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), statePrefix+"*-*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(dir), statePrefix), "-", 2)[0])
		if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(dir)
		}
	}
}

// keepShared lists the directories that stay shared under the hosts'
// private /tmp: the state directory, which holds the agent and the
// hostfiles, and the test binary's, so that a test can run itself on a
// host. The root of the private /tmp keeps what lies under it.
func (c *Cluster) keepShared() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	for _, dir := range []string{c.state, filepath.Dir(exe)} {
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return err
		}
		if strings.HasPrefix(dir, "/tmp/") {
			c.kept = append(c.kept, dir)
		}
	}
	return nil
}

// startAnchors starts the bridge's anchor and every host's, then waits for
// all of them: their setups run in parallel.
func (c *Cluster) startAnchors(opts Options) error {
	type started struct {
		a       *anchor
		name    string
		logPath string
		out     *bufio.Reader
	}
	var all []started
	start := func(name string, ns []string, script string, args ...string) error {
		logPath := filepath.Join(c.state, "anchor-"+name+".log")
		a, out, err := startAnchor(ns, script, logPath, args...)
		if err != nil {
			return fmt.Errorf("%s: starting its anchor: %w", name, err)
		}
		all = append(all, started{a, name, logPath, out})
		return nil
	}
	err := start("bridge", []string{"--net"}, bridgeScript)
	if err == nil {
		c.bridge = all[0].a
		for _, h := range c.hosts {
			args := []string{h.name, c.state, "shared"}
			if opts.PrivateTmp {
				args = append([]string{h.name, c.state, "private"}, c.kept...)
			}
			if err = start(h.name, hostNS, hostScript, args...); err != nil {
				break
			}
			h.anchor = all[len(all)-1].a
		}
	}
	var errs []error
	for _, s := range all {
		if rerr := s.a.ready(s.out, s.logPath); rerr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.name, rerr))
		}
	}
	return errors.Join(append([]error{err}, errs...)...)
}

// cable plugs every host's eth0 into the bridge and gives it its address.
func (c *Cluster) cable() error {
	var b strings.Builder
	for _, h := range c.hosts {
		fmt.Fprintf(&b, "link add name v-%s type veth peer name eth0 netns %d\n", h.name, h.anchor.pid)
		fmt.Fprintf(&b, "link set v-%s master br0 up\n", h.name)
	}
	if err := c.ip(c.bridge, b.String()); err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	for _, h := range c.hosts {
		if err := c.ip(h.anchor, "addr add "+h.addr+"/24 dev eth0\nlink set eth0 up\n"); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}
	return nil
}

// ip runs ip's batch of commands in a's network namespace.
func (c *Cluster) ip(a *anchor, batch string) error {
	cmd := exec.Command(c.nsenter, "-t", strconv.Itoa(a.pid), "--net", "ip", "-batch", "-")
	cmd.Stdin = strings.NewReader(batch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip -batch %q: %v: %s", batch, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Hosts returns the hosts' names, h1..hN.
func (c *Cluster) Hosts() []string {
	names := make([]string, len(c.hosts))
	for i, h := range c.hosts {
		names[i] = h.name
	}
	return names
}

// Addr returns host's IPv4 address. An unknown host fails the test, so
// call it from the test's goroutine.
func (c *Cluster) Addr(host string) string {
	c.tb.Helper()
	h, err := c.host(host)
	if err != nil {
		c.tb.Fatal(err)
	}
	return h.addr
}

// host finds a host by name or address.
func (c *Cluster) host(name string) (*host, error) {
	if c.isDown.Load() {
		return nil, errors.New("cluster: used after the test that built it ended")
	}
	for _, h := range c.hosts {
		if name == h.name || name == h.addr {
			return h, nil
		}
	}
	return nil, fmt.Errorf("cluster: no host %q: the hosts are %s (or their addresses 10.77.%d.1-%d)",
		name, strings.Join(c.Hosts(), " "), c.subnet.x, len(c.hosts))
}

// Command returns a command that runs name with args inside host (a name
// or an address), in the caller's working directory and environment. An
// unknown host makes the command's Start fail.
func (c *Cluster) Command(host, name string, args ...string) *exec.Cmd {
	h, err := c.host(host)
	if err != nil {
		cmd := exec.Command(name, args...)
		cmd.Err = err
		return cmd
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "/"
	}
	argv := append([]string{"-t", strconv.Itoa(h.anchor.pid), "--net", "--uts", "--ipc", "--mount", "--wd=" + wd, "--", name}, args...)
	return exec.Command(c.nsenter, argv...)
}

// WriteHostfile writes a hostfile in Open MPI's format ("h1 slots=2", one
// line per host) into the cluster's state directory and returns its path,
// one per slot count. A bad slot count fails the test, so call it from the
// test's goroutine.
func (c *Cluster) WriteHostfile(slots int) string {
	c.tb.Helper()
	if slots < 1 {
		c.tb.Fatalf("cluster: hostfile with %d slots per host: at least 1 is needed", slots)
	}
	var b strings.Builder
	for _, h := range c.hosts {
		fmt.Fprintf(&b, "%s slots=%d\n", h.name, slots)
	}
	// Written aside and renamed, so that a job started by a parallel
	// test never reads a half-written file.
	f, err := os.CreateTemp(c.state, "hostfile-*")
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	path := filepath.Join(c.state, "hostfile-"+strconv.Itoa(slots))
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		c.tb.Fatalf("cluster: writing the hostfile: %v", err)
	}
	return path
}

// LinkDown takes host's eth0 down, as if its cable were pulled: the other
// hosts can no longer reach it, and it reaches nobody. It returns an error
// rather than failing the test, so that a goroutine may pull a cable in
// the middle of a job.
func (c *Cluster) LinkDown(host string) error { return c.setLink(host, "down") }

// LinkUp puts host's eth0 back up after LinkDown.
func (c *Cluster) LinkUp(host string) error { return c.setLink(host, "up") }

func (c *Cluster) setLink(host, state string) error {
	h, err := c.host(host)
	if err != nil {
		return err
	}
	if err := c.ip(h.anchor, "link set eth0 "+state+"\n"); err != nil {
		return fmt.Errorf("cluster: %s: link %s: %w", h.name, state, err)
	}
	return nil
}
