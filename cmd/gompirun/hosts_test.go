package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/hostmap"
	"github.com/gompi/gompi/internal/node"
)

var here = hostmap.Host{Name: "here", Slots: 4}

func place(t *testing.T, args ...string) ([]string, string, *options, error) {
	t.Helper()
	o, err := parse(t, args...)
	if err != nil {
		return nil, "", nil, err
	}
	m, err := placement(o, here)
	if err != nil {
		return nil, "", o, err
	}
	hosts, local, err := applyPlacement(o, m, func(h string) bool { return h == "here" || h == "alias" })
	return hosts, local, o, err
}

// TestHostOptions: a host list without -np fills its slots, -N puts as
// many on every host, --map-by node goes round robin, and this host's
// name runs ranks here.
func TestHostOptions(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		hosts []string
		np    []int
	}{
		{[]string{"--host", "here:2,h2:2", "prog"}, []string{"here", "here", "h2", "h2"}, []int{4}},
		{[]string{"-H", "here,h2", "--map-by", "node", "-np", "4", "--oversubscribe", "prog"}, []string{"here", "h2", "here", "h2"}, []int{4}},
		{[]string{"--host", "here:4,h2:4", "-N", "1", "prog"}, []string{"here", "h2"}, []int{2}},
		{[]string{"-host", "h2:2,h3", "-np", "1", "a", ":", "-np", "2", "b"}, []string{"h2", "h2", "h3"}, []int{1, 2}},
		{[]string{"-np", "2", "prog"}, []string{"here", "here"}, []int{2}},
	} {
		hosts, _, o, err := place(t, tc.args...)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		var np []int
		for _, a := range o.apps {
			np = append(np, a.np)
		}
		if !slices.Equal(hosts, tc.hosts) || !slices.Equal(np, tc.np) {
			t.Errorf("%q: hosts %q, ranks %v; want %q, %v", tc.args, hosts, np, tc.hosts, tc.np)
		}
	}
}

func TestHostOptionErrors(t *testing.T) {
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("h2 slots=2\nh3 slots=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "comments")
	if err := os.WriteFile(empty, []byte("# no host yet\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prog"}, "-np N is required"},
		{[]string{"--host", "h2,h3", "-N", "0", "prog"}, "-N 0: want a positive number of ranks per node"},
		{[]string{"--host", "h2:2", "-np", "3", "prog"}, "--oversubscribe"},
		{[]string{"--host", "h2", "--map-by", "core", "prog"}, `--map-by core: unknown policy "core"`},
		{[]string{"--host", "h2", "--rank-by", "socket", "prog"}, "--rank-by socket: unknown policy"},
		{[]string{"--hostfile", hostfile, "prog"}, "--hostfile: " + hostfile + ":2: slots=x"},
		{[]string{"--hostfile", filepath.Join(t.TempDir(), "none"), "prog"}, "--hostfile: open "},
		{[]string{"--hostfile", empty, "prog"}, "--hostfile: " + empty + " names no host"},
		{[]string{"--host", "here,alias", "prog"}, "hosts here and alias are both this host"},
	} {
		_, _, _, err := place(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestDaemonCommand: the other hosts run gompi-daemon where gompirun has
// it beside itself here, else gompirun's daemon mode; under --prefix
// from the prefix's bin.
func TestDaemonCommand(t *testing.T) {
	alone, beside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(beside, node.DaemonName), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix, exe string
		want        []string
	}{
		{"", alone + "/gompirun", []string{alone + "/gompirun", node.DaemonFlag}},
		{"", beside + "/gompirun", []string{beside + "/" + node.DaemonName}},
		{"/opt/gompi", alone + "/gompirun", []string{"/opt/gompi/bin/gompirun", node.DaemonFlag}},
		{"/opt/gompi", beside + "/gompirun", []string{"/opt/gompi/bin/" + node.DaemonName}},
	} {
		if got := daemonCommand(tc.prefix, tc.exe); !slices.Equal(got, tc.want) {
			t.Errorf("prefix %q, gompirun %s: %q, want %q", tc.prefix, tc.exe, got, tc.want)
		}
	}
}

func TestIsLocalHost(t *testing.T) {
	self, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	for name, want := range map[string]bool{"localhost": true, self: true, "no-such-host.invalid": false} {
		if got := isLocalHost(name); got != want {
			t.Errorf("isLocalHost(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestSlurmAllocation: inside an allocation the ranks go to its nodes,
// its tasks per node being their slots; --host picks nodes of it.
func TestSlurmAllocation(t *testing.T) {
	env := map[string]string{"SLURM_JOB_NODELIST": "n[1-2]", "SLURM_TASKS_PER_NODE": "2(x2)"}
	for _, tc := range []struct {
		args  []string
		hosts []string
		err   string
	}{
		{[]string{"prog"}, []string{"n1", "n1", "n2", "n2"}, ""},
		{[]string{"--map-by", "node", "-np", "2", "prog"}, []string{"n1", "n2"}, ""},
		{[]string{"--host", "n2", "prog"}, []string{"n2"}, ""},
		{[]string{"--host", "n3", "prog"}, nil, "--host: "},
	} {
		o, err := parseArgs(tc.args, testHost(env), &strings.Builder{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		m, err := placement(o, here)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		hosts, _, err := applyPlacement(o, m, func(string) bool { return false })
		if err != nil || !slices.Equal(hosts, tc.hosts) {
			t.Errorf("%q: hosts %q, %v; want %q", tc.args, hosts, err, tc.hosts)
		}
	}
}

// TestLaunchAgentKeepsVerbosity: selecting the plm component sets its
// system's log levels from the parameters, not gompirun's own: -v still
// logs, and plm_base_verbose debug says why a component declined.
func TestLaunchAgentKeepsVerbosity(t *testing.T) {
	var out strings.Builder
	log := newLog(1, &out)
	o, err := parse(t, "--mca", "plm_rsh_agent", "/nonexistent/ssh", "--mca", "plm_base_verbose", "debug", "-np", "1", "prog")
	if err != nil {
		t.Fatal(err)
	}
	env := rankEnv(nil, o, "gompirun")
	if a, err := launchAgent(env, nil, log); err == nil {
		a.close()
		t.Fatalf("launchAgent with no agent to run selected a component: %s", out.String())
	}
	if !log.IsDebug() {
		t.Errorf("after launchAgent gompirun's log level is %v, want debug (-v)", log.GetLevel())
	}
	if !strings.Contains(out.String(), "(plm_rsh_agent) cannot be run") {
		t.Errorf("the log does not say why rsh declined:\n%s", out.String())
	}

	// -v alone: the plm system logs at its default level, warnings, and
	// gompirun still at debug.
	log = newLog(1, &out)
	if o, err = parse(t, "-np", "1", "prog"); err != nil {
		t.Fatal(err)
	}
	if a, err := launchAgent(rankEnv(nil, o, "gompirun"), nil, log); err == nil {
		a.close()
	}
	if !log.IsDebug() {
		t.Errorf("after launchAgent with -v, gompirun's log level is %v, want debug", log.GetLevel())
	}
}
