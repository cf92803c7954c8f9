package cluster

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real sshd per host and ssh sessions")
	}
	c := Up(t, 3, Options{SSH: true})
	agent := c.Agent()

	t.Run("commands", func(t *testing.T) {
		if got := output(t, c, "h1", agent, "h2", "hostname"); got != "h2" {
			t.Errorf("ssh h2 hostname printed %q", got)
		}
		cmd := c.Command("h1", agent, "root@"+c.Addr("h3"), "echo", "a  b", "c;", "exit", "4")
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); exitCode(t, err) != 4 || got != "a b c" {
			t.Errorf("ssh to h3's address: %q, %v; want %q and exit status 4", got, err, "a b c")
		}
	})

	t.Run("environment not forwarded", func(t *testing.T) {
		cmd := c.Command("h1", agent, "h2", "echo ${GOMPI_CLUSTER_MARK-unset}")
		cmd.Env = append(os.Environ(), "GOMPI_CLUSTER_MARK=set")
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != "unset" {
			t.Errorf("the variable on h2: %q, %v; want it unset, as ssh does not forward it", got, exitDetail(err))
		}
	})

	t.Run("refused outside the hosts", func(t *testing.T) {
		var stderr strings.Builder
		cmd := exec.Command(agent, "h2", "true")
		cmd.Stderr = &stderr
		if err := cmd.Run(); exitCode(t, err) != 255 || !strings.Contains(stderr.String(), "inside") {
			t.Errorf("ssh from the root namespace: %v, %q; want exit 255 and a message", err, stderr.String())
		}
	})

	// sshd's processes, the listener and those of sessions that are
	// closing, belong to the hosts.
	if left := c.Leftovers(); len(left) != 0 {
		t.Errorf("Leftovers() = %q, want none", left)
	}

	t.Run("mpirun.openmpi", func(t *testing.T) { checkOpenMPIHostnames(t, c, agent) })
}
