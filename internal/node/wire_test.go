package node

import (
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/cpuset"
)

// TestDaemonSpecBind: a daemon's spec names its binding policy as
// --bind-to does, and an unknown one is refused naming the allowed ones.
func TestDaemonSpecBind(t *testing.T) {
	spec := DaemonSpec{Size: 1, JobID: "j", Servers: []string{"a:1"}, Secret: []byte("s"),
		Apps: []App{{NP: 1, Program: "p"}}, Ranks: []DaemonRank{{}}}
	for _, b := range []Bind{BindNone, BindAuto, BindCore} {
		spec.Bind = b.String()
		if err := spec.check(); err != nil {
			t.Errorf("bind %s: %v", b, err)
		}
		if got, err := parseBind(b.String()); err != nil || got != b {
			t.Errorf("parseBind(%q) = %v, %v; want %v", b.String(), got, err, b)
		}
	}
	spec.Bind = "socket"
	if err := spec.check(); err == nil || !strings.Contains(err.Error(), `"socket"`) || !strings.Contains(err.Error(), "auto, core and none") {
		t.Errorf("bind socket: %v; want an error naming the value and the allowed ones", err)
	}
}

// TestHostCPUs: the CPUs a daemon's ranks may use include at least the
// daemon's own, however narrow its mask.
func TestHostCPUs(t *testing.T) {
	own, err := cpuset.Allowed()
	if err != nil {
		t.Fatal(err)
	}
	host, err := hostCPUs()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range own {
		if !slices.Contains(host, c) {
			t.Errorf("the host's CPUs %v lack the daemon's CPU %d", host, c)
		}
	}
}

func TestSpecChildrenChecked(t *testing.T) {
	s := DaemonSpec{Size: 1, JobID: "j", Servers: []string{"a:1"}, Secret: []byte("s"), Apps: []App{{Program: "p"}},
		Ranks: []DaemonRank{{}}, Children: []ChildAgent{{Host: "h2"}}}
	b, err := EncodeSpec(&s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeSpec(b); err == nil {
		t.Fatal("a child without the agent's command line was accepted")
	}
}
