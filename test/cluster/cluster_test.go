package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// roleEnv makes the test binary a tiny TCP server or client on a host.
const roleEnv = "GOMPI_CLUSTER_TEST_ROLE"

func TestMain(m *testing.M) {
	switch role := os.Getenv(roleEnv); {
	case role == "serve":
		serve()
	case strings.HasPrefix(role, "dial "):
		dial(strings.Fields(role)[1:])
	case role != "":
		fmt.Fprintf(os.Stderr, "%s=%q: serve, or dial ADDR TIMEOUT\n", roleEnv, role)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// serve prints the port it listens on, then answers every connection with
// its host's name until it is killed.
func serve() {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	name, _ := os.Hostname()
	for {
		conn, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		fmt.Fprintln(conn, name)
		conn.Close()
	}
}

// dial prints what the server at args[0] answers; it exits 1 if it cannot
// connect within args[1], a duration.
func dial(args []string) {
	timeout, err := time.ParseDuration(args[len(args)-1])
	if err != nil || len(args) != 2 {
		fmt.Fprintln(os.Stderr, "dial ADDR TIMEOUT:", args, err)
		os.Exit(2)
	}
	conn, err := net.DialTimeout("tcp", args[0], timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := io.Copy(os.Stdout, conn); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// self is the test binary, under go test's /tmp work directory, which
// every host sees.
func self(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// startServer starts serve on host and returns its port.
func startServer(t *testing.T, c *Cluster, host string) string {
	cmd := c.Command(host, self(t))
	cmd.Env = append(os.Environ(), roleEnv+"=serve")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("server on %s: %v", host, err)
	}
	return strings.TrimSpace(port)
}

// dialFrom connects from host to addr and returns the answer. The
// timeout is generous: only a dial that must fail is given a short one.
func dialFrom(t *testing.T, c *Cluster, host, addr string) (string, error) {
	return dialWithin(t, c, host, addr, time.Minute)
}

func dialWithin(t *testing.T, c *Cluster, host, addr string, timeout time.Duration) (string, error) {
	cmd := c.Command(host, self(t))
	cmd.Env = append(os.Environ(), roleEnv+"=dial "+addr+" "+timeout.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// output runs a command on host and returns its trimmed stdout.
func output(t *testing.T, c *Cluster, host, name string, args ...string) string {
	t.Helper()
	out, err := c.Command(host, name, args...).Output()
	if err != nil {
		t.Fatalf("%s on %s: %v", name, host, exitDetail(err))
	}
	return strings.TrimSpace(string(out))
}

func exitDetail(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// exitCode returns a finished command's status, failing the test when it
// did not run.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

func TestCluster(t *testing.T) {
	realName, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c := Up(t, 3, Options{})
	if got, want := c.Hosts(), []string{"h1", "h2", "h3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Hosts() = %v, want %v", got, want)
	}

	t.Run("hostnames", func(t *testing.T) {
		for _, h := range c.Hosts() {
			if got := output(t, c, h, "hostname"); got != h {
				t.Errorf("hostname on %s printed %q", h, got)
			}
		}
		if got, _ := os.Hostname(); got != realName {
			t.Errorf("the machine's hostname changed from %q to %q", realName, got)
		}
	})

	t.Run("no way out", func(t *testing.T) {
		// No default route: an address outside the cluster is unreachable
		// before any packet is sent.
		out, err := c.Command("h1", "ip", "route", "get", "192.0.2.1").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "unreachable") {
			t.Errorf("h1 has a route out of the cluster: %s (%v)", out, err)
		}
	})

	t.Run("shm", func(t *testing.T) {
		name := "/dev/shm/gompi-cluster-test-" + strconv.Itoa(os.Getpid())
		output(t, c, "h1", "sh", "-c", "echo x >"+name)
		if out := output(t, c, "h1", "cat", name); out != "x" {
			t.Fatalf("h1 reads %q from %s", out, name)
		}
		if err := c.Command("h2", "test", "-e", name).Run(); exitCode(t, err) != 1 {
			t.Errorf("h1's %s is visible on h2 (test -e: %v)", name, err)
		}
		if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("h1's %s is visible in the root namespace (stat: %v)", name, err)
		}
		if left := c.Leftovers(); !slices.Contains(left, "h1: "+name) {
			t.Errorf("Leftovers() = %q, missing h1's %s", left, name)
		}
		output(t, c, "h1", "rm", name)
	})

	t.Run("tcp by name", func(t *testing.T) {
		port := startServer(t, c, "h3")
		got, err := dialFrom(t, c, "h1", net.JoinHostPort("h3", port))
		if err != nil || got != "h3" {
			t.Errorf("h1 dialling h3:%s: got %q, %v", port, got, err)
		}
	})

	t.Run("agent", func(t *testing.T) {
		agent := c.Agent()
		cases := []struct {
			args   []string
			code   int
			stdout string
		}{
			{[]string{"-x", "-o", "BatchMode=yes", "-p", "22", "-l", "root", "h2", "hostname; exit 3"}, 3, "h2"},
			{[]string{"-xq", "-oStrictHostKeyChecking=no", "-p22", "root@" + c.Addr("h2"), "echo", "a  b", "c"}, 0, "a b c"},
			{[]string{"h2", "test", "$(hostname)", "=", "h2"}, 0, ""},
			{[]string{"h2", "false"}, 1, ""},
			{[]string{"h4", "true"}, 255, ""},
			{[]string{"-Z", "h2", "true"}, 255, ""},
			{[]string{"h2"}, 255, ""},
		}
		for _, tc := range cases {
			cmd := exec.Command(agent, tc.args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if code := exitCode(t, err); code != tc.code || strings.TrimSpace(string(out)) != tc.stdout {
				t.Errorf("agent %q: exit %d, stdout %q (stderr %q); want exit %d, stdout %q",
					tc.args, code, out, stderr.String(), tc.code, tc.stdout)
			}
			if tc.code == 255 && stderr.Len() == 0 {
				t.Errorf("agent %q: exit 255 without a message", tc.args)
			}
		}
		// Like sshd, the agent runs the command in $HOME.
		home, _ := os.UserHomeDir()
		if out, err := exec.Command(agent, "h3", "pwd").Output(); err != nil || strings.TrimSpace(string(out)) != home {
			t.Errorf("agent h3 pwd: %q, %v; want %q", out, err, home)
		}
	})

	t.Run("hostfile", func(t *testing.T) {
		b, err := os.ReadFile(c.WriteHostfile(2))
		if want := "h1 slots=2\nh2 slots=2\nh3 slots=2\n"; err != nil || string(b) != want {
			t.Errorf("hostfile: %q, %v; want %q", b, err, want)
		}
	})

	t.Run("link down", func(t *testing.T) {
		addr := net.JoinHostPort("h2", startServer(t, c, "h2"))
		other := net.JoinHostPort("h3", startServer(t, c, "h3"))
		if got, err := dialFrom(t, c, "h1", addr); err != nil || got != "h2" {
			t.Fatalf("h1 dialling %s with the link up: %q, %v", addr, got, err)
		}
		if err := c.LinkDown("h2"); err != nil {
			t.Fatal(err)
		}
		// The dial fails whatever its deadline: the deadline only keeps
		// the test short.
		if got, err := dialWithin(t, c, "h1", addr, 200*time.Millisecond); err == nil {
			t.Errorf("h1 reached %s (%q) with h2's link down", addr, got)
		}
		if got, err := dialFrom(t, c, "h1", other); err != nil || got != "h3" {
			t.Errorf("h1 dialling %s with h2's link down: %q, %v; only h2 is cut off", other, got, err)
		}
		if err := c.LinkUp("h2"); err != nil {
			t.Fatal(err)
		}
		if got, err := dialFrom(t, c, "h1", addr); err != nil || got != "h2" {
			t.Errorf("h1 dialling %s with the link up again: %q, %v", addr, got, err)
		}
	})

	if left := c.Leftovers(); len(left) != 0 {
		t.Errorf("Leftovers() after the subtests = %q, want none", left)
	}
}

// skipUnlessAvailable skips a test that checks its clusters after their
// subtests end, when those subtests would skip.
func skipUnlessAvailable(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
}

func TestLeftoversAndTeardown(t *testing.T) {
	skipUnlessAvailable(t)
	var (
		c     *Cluster
		sleep int
		nets  = make(map[string]bool)
	)
	t.Run("cluster", func(t *testing.T) {
		c = Up(t, 2, Options{})
		out, err := exec.Command(c.Agent(), "h2", "sleep 600 >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			t.Fatal(exitDetail(err))
		}
		if sleep, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			t.Fatal(err)
		}
		output(t, c, "h1", "touch", "/dev/shm/gompi-leftover")
		left := c.Leftovers()
		for _, want := range []string{fmt.Sprintf("h2: process %d: sleep 600", sleep), "h1: /dev/shm/gompi-leftover"} {
			if !slices.Contains(left, want) {
				t.Errorf("Leftovers() = %q, missing %q", left, want)
			}
		}
		if len(left) != 2 {
			t.Errorf("Leftovers() = %q, want the sleep and the file only", left)
		}
		for _, a := range append([]*anchor{c.bridge}, c.hosts[0].anchor, c.hosts[1].anchor) {
			nets[a.net] = true
		}
	})
	if c == nil || len(nets) != 3 {
		t.Fatal("the cluster was not built")
	}
	// The subtest's cleanup tore the cluster down.
	if in, err := procsIn(nets); err != nil || len(in) != 0 {
		t.Errorf("after teardown, processes in the cluster's namespaces: %v, %v (the orphaned sleep was %d)", in, err, sleep)
	}
	for _, h := range c.hosts {
		if h.anchor.cmd.ProcessState == nil {
			t.Errorf("%s's anchor %d was not reaped", h.name, h.anchor.pid)
		}
	}
	if _, err := os.Stat(c.state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state directory %s after teardown: %v", c.state, err)
	}
	if _, err := os.Stat(c.subnet.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("subnet lock %s after teardown: %v", c.subnet.path, err)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		if strings.Contains(line, c.state) || strings.Contains(line, " shm-h") {
			t.Errorf("mount left in the root namespace: %s", line)
		}
	}
}

func TestParallelClusters(t *testing.T) {
	skipUnlessAvailable(t)
	var mu sync.Mutex
	subnets := make(map[string]string)
	t.Run("group", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				c := Up(t, 3, Options{})
				for _, h := range c.Hosts() {
					if got := output(t, c, h, "hostname"); got != h {
						t.Errorf("hostname on %s printed %q", h, got)
					}
				}
				port := startServer(t, c, "h2")
				if got, err := dialFrom(t, c, "h3", net.JoinHostPort("h2", port)); err != nil || got != "h2" {
					t.Errorf("h3 dialling h2: %q, %v", got, err)
				}
				mu.Lock()
				subnets[name] = c.Addr("h1")
				mu.Unlock()
			})
		}
	})
	if subnets["a"] == subnets["b"] {
		t.Errorf("two clusters built at once share h1's address %s", subnets["a"])
	}
}

func TestSubnetClaims(t *testing.T) {
	skipUnlessAvailable(t) // the lock files of root's clusters are root's
	a, err := claimSubnet()
	if err != nil {
		t.Fatal(err)
	}
	b, err := claimSubnet()
	if err != nil {
		t.Fatal(err)
	}
	if a.x == b.x {
		t.Errorf("two claims got subnet %d", a.x)
	}
	if err := a.release(); err != nil {
		t.Error(err)
	}
	c, err := claimSubnet()
	if err != nil {
		t.Fatal(err)
	}
	if c.x != a.x {
		t.Errorf("after %d was released, the next claim got %d", a.x, c.x)
	}
	for _, l := range []*subnetLock{b, c} {
		if err := l.release(); err != nil {
			t.Error(err)
		}
	}
}

func TestAvailable(t *testing.T) {
	if os.Geteuid() != 0 {
		if err := Available(); err == nil || !strings.Contains(err.Error(), "needs root") {
			t.Errorf("Available() as uid %d = %v, want an error that says root is needed", os.Geteuid(), err)
		}
		return
	}
	if err := Available(); err != nil {
		t.Logf("this machine cannot build clusters: %v", err)
	}
}

// holdEnv makes TestKilledTestLeavesNoHost, in a child test process,
// build a cluster, print its anchors and wait to be killed.
const holdEnv = "GOMPI_CLUSTER_TEST_HOLD"

func TestKilledTestLeavesNoHost(t *testing.T) {
	if os.Getenv(holdEnv) != "" {
		c := Up(t, 2, Options{})
		fmt.Printf("anchors %d %d %d %s\n", c.bridge.pid, c.hosts[0].anchor.pid, c.hosts[1].anchor.pid, c.subnet.path)
		io.Copy(io.Discard, os.Stdin) // until killed: the parent never closes it
		return
	}
	skipUnlessAvailable(t)
	cmd := exec.Command(self(t), "-test.run=^TestKilledTestLeavesNoHost$")
	cmd.Env = append(os.Environ(), holdEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said []string
	var fds []int
	var lock string
	for r := bufio.NewReader(out); len(fds) == 0; {
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child test ended without a cluster: %q", said)
		}
		said = append(said, line)
		if f := strings.Fields(line); len(f) == 5 && f[0] == "anchors" {
			lock = f[4]
			for _, s := range f[1:4] {
				pid, _ := strconv.Atoi(s)
				fd, err := unix.PidfdOpen(pid, 0)
				if err != nil {
					t.Fatalf("anchor %d: %v", pid, err)
				}
				defer unix.Close(fd)
				fds = append(fds, fd)
			}
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := waitExited(fds, time.Now().Add(killTimeout)); err != nil {
		t.Errorf("the anchors of a killed test process still run (%v): %s", err, said)
		for _, fd := range fds {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
	}
	// What the killed process leaves, the next Up or claim clears.
	removeStaleStates()
	if l, err := tryLock(lock); err == nil && l != nil {
		l.release()
	}
	if dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), statePrefix+strconv.Itoa(cmd.Process.Pid)+"-*")); len(dirs) != 0 {
		t.Errorf("the killed test process's state %v is left after removeStaleStates", dirs)
	}
}

// BenchmarkUpDown measures Up and the teardown of 3 hosts, with the ssh
// stand-in and with a real sshd per host.
func BenchmarkUpDown(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{{"agent", Options{}}, {"ssh", Options{SSH: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			if err := Available(); err != nil {
				b.Skip(err)
			}
			if bc.opts.SSH {
				if err := sshAvailable(); err != nil {
					b.Skip(err)
				}
			}
			var up, down time.Duration
			n := 0
			for b.Loop() {
				start := time.Now()
				c := &Cluster{tb: b}
				err := Available()
				if err == nil {
					err = c.build(3, bc.opts)
				}
				up += time.Since(start)
				start = time.Now()
				if derr := c.down(); derr != nil {
					b.Fatal(derr)
				}
				down += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(up.Microseconds())/1000/float64(n), "up-ms/op")
			b.ReportMetric(float64(down.Microseconds())/1000/float64(n), "down-ms/op")
		})
	}
}

func TestPrivateTmp(t *testing.T) {
	c := Up(t, 2, Options{PrivateTmp: true})
	name := "/tmp/gompi-cluster-private-" + strconv.Itoa(os.Getpid())
	output(t, c, "h1", "touch", name)
	if err := c.Command("h2", "test", "-e", name).Run(); exitCode(t, err) != 1 {
		t.Errorf("h1's %s is visible on h2 (test -e: %v)", name, err)
	}
	if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("h1's %s is visible in the root namespace (stat: %v)", name, err)
	}
	if left := c.Leftovers(); !slices.Equal(left, []string{"h1: " + name}) {
		t.Errorf("Leftovers() = %q, want h1's %s only", left, name)
	}
	// The test binary and the agent, both under the shared /tmp, still
	// run on the hosts.
	port := startServer(t, c, "h2")
	if got, err := dialFrom(t, c, "h1", net.JoinHostPort("h2", port)); err != nil || got != "h2" {
		t.Errorf("h1 dialling h2: %q, %v", got, err)
	}
	if got := output(t, c, "h1", c.Agent(), "h2", "hostname"); got != "h2" {
		t.Errorf("the agent run on h1 for h2 printed %q", got)
	}
	output(t, c, "h1", "rm", name)
}
