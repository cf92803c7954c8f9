// Package rsh is the plm component that starts gompirun's daemon on a host
// through a remote shell agent: ssh by default, or any command that takes
// a host and a command line as ssh does (plm_rsh_agent: "ssh -p 2222", a
// site's wrapper, a container's exec).
package rsh

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gompi/gompi/frameworks/plm"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

var info = plm.Info("rsh", mca.Version{Major: 1}, 10, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the rsh plm component.
type Component struct {
	plm.BaseComponent
	agentParam  params.Param[string]
	fanoutParam params.Param[int]
	agent       []string // the agent's program and its own arguments
	fanout      int
}

// RegisterParams registers plm_rsh_agent and plm_rsh_tree_fanout.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.agentParam = r.String(params.Spec{
		Name: "agent", Default: "ssh", Level: 2,
		Help: "The command that runs a command on another host: its program and arguments, then the host " +
			"and the command line are added, as ssh takes them (\"ssh -p 2222\", \"/usr/local/bin/site-rsh\"). " +
			"The host's shell runs the command line, so the daemon's path is quoted for it.",
		Accepts: "a command and its arguments, not empty",
		Validate: func(v any) error {
			if len(strings.Fields(v.(string))) == 0 {
				return fmt.Errorf("empty: want a command such as ssh")
			}
			return nil
		},
	})
	c.fanoutParam = r.Int(params.Spec{
		Name: "tree_fanout", Default: "8", Level: 4,
		Help: "The most daemons gompirun, or a daemon, starts itself. With more other hosts, gompirun starts the daemons of " +
			"the first this many, and each of those starts up to this many more through the same agent, and so on a level at " +
			"a time, so that a launch on many hosts is not as many connections from one; every host must then reach its " +
			"children with the agent. 0 starts every daemon from gompirun.",
		Range: params.IntIn(0, 4096),
	})
	return nil
}

// Open reads the agent and the fanout.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.agent = strings.Fields(c.agentParam.Get(env.Params))
	c.fanout = c.fanoutParam.Get(env.Params)
	return nil
}

// TreeFanout is plm_rsh_tree_fanout: the agent runs from any host of the
// job, so daemons can start each other's.
func (c *Component) TreeFanout() int { return c.fanout }

// Query declines where the agent's program cannot be found.
func (c *Component) Query(_ context.Context, env *mca.Env) (int, error) {
	if _, err := exec.LookPath(c.agent[0]); err != nil {
		return 0, fmt.Errorf("%w: the agent %q (plm_rsh_agent) cannot be run: %v", mca.ErrDeclined, c.agent[0], err)
	}
	return env.Priority, nil
}

// Command runs argv on host through the agent; the remote shell gets one
// command line with every word quoted.
func (c *Component) Command(host string, argv []string) (*exec.Cmd, error) {
	if host == "" || strings.HasPrefix(host, "-") {
		return nil, fmt.Errorf("host %q: not a host name", host)
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	args := append(append([]string(nil), c.agent[1:]...), host, strings.Join(words, " "))
	return exec.Command(c.agent[0], args...), nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
