package rsh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/plm"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// selectWith loads the plm framework with rsh alone and plm_rsh_agent set
// to agent, and selects.
func selectWith(t *testing.T, agent string) (plm.Component, error) {
	t.Helper()
	reg := mca.NewRegistry()
	reg.RegisterFramework(mca.FrameworkSpec{Name: plm.Name, Version: plm.APIVersion(), Accepts: mca.Implements[plm.Component]()})
	reg.Register(info)
	in := params.Inputs{CommandLine: []params.Setting{{Name: "plm_rsh_agent", Value: agent}}}
	sys, err := mca.Load(mca.Options{Registry: reg, Logger: hclog.NewNullLogger()}, in)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { sys.Close() })
	fw, err := sys.Framework(plm.Name)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := plm.Select(context.Background(), fw)
	return c, err
}

// TestCommand: the agent gets its own arguments, the host, then one
// command line that a shell turns back into the same words.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	// An ssh stand-in: skips its options, takes the host, runs the rest in a shell.
	script := "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\nhost=$1; shift\necho \"host=$host\"\nexec sh -c \"$*\"\n"
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := selectWith(t, agent+" -x -T")
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"printf", "[%s]", "two words", "it's", "$HOME", "a;b", ""}
	cmd, err := c.Command("h2", argv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cmd.Args[1:3]; got[0] != "-x" || got[1] != "-T" || cmd.Args[3] != "h2" {
		t.Errorf("agent arguments %q, want -x -T h2 first", cmd.Args[1:])
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "host=h2\n[two words][it's][$HOME][a;b][]"; string(out) != want {
		t.Errorf("the remote command printed %q, want %q", out, want)
	}
	if _, err := c.Command("-oProxyCommand=x", argv); err == nil {
		t.Error("a host that is an option was accepted")
	}
}

// TestMissingAgentDeclines: without the agent program, rsh declines and
// Select says that no component can launch.
func TestMissingAgentDeclines(t *testing.T) {
	_, err := selectWith(t, "/nonexistent/ssh -p 22")
	if err == nil || !strings.Contains(err.Error(), "no component can start processes on other hosts") {
		t.Fatalf("Select = %v", err)
	}
	if _, err := selectWith(t, "  "); err == nil || !strings.Contains(err.Error(), "plm_rsh_agent") || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("an empty agent: %v", err)
	}
}
