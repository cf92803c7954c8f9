package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// agentScript is an ssh stand-in: ssh's options (OpenSSH 9's set) are
// accepted and ignored, [user@]HOST picks the host (user is ignored: the
// command runs as the caller), and the remaining words are joined with
// spaces and run by sh -c in $HOME inside the host, as sshd runs them.
// Agent errors exit 255, as ssh's do. %[1]s is the state directory, %[2]s
// the host table (a case list), %[3]s the hosts for messages, %[4]s
// nsenter.
const agentScript = `#!/bin/sh
# ssh stand-in for the gompi test cluster in %[1]s
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	-?*) ;;
	*) break ;;
	esac
	opts=${1#-}
	shift
	while [ -n "$opts" ]; do
		c=${opts%%"${opts#?}"}
		opts=${opts#?}
		case $c in
		[46AaCfGgKkMNnqsTtVvXxYy]) ;;
		[BbcDEeFIiJLlmOopQRSWw])
			if [ -z "$opts" ]; then
				[ $# -gt 0 ] || { echo "$0: option -$c needs an argument" >&2; exit 255; }
				shift
			fi
			opts= ;;
		*) echo "$0: unknown option -$c" >&2; exit 255 ;;
		esac
	done
done
[ $# -gt 0 ] || { echo "usage: $0 [ssh options] [user@]host command..." >&2; exit 255; }
host=${1#*@}
shift
case $host in
%[2]s*) echo "$0: no host '$host': the hosts are %[3]s" >&2; exit 255 ;;
esac
[ $# -gt 0 ] || { echo "$0: $host: a command is needed (no interactive shells)" >&2; exit 255; }
wd=${HOME:-/}
[ -d "$wd" ] || wd=/
exec %[4]s -t "$pid" --net --uts --ipc --mount --wd="$wd" -- /bin/sh -c "$*"
`

// writeAgent generates the ssh stand-in as state/bin/ssh: launchers that
// look at their agent's name (Open MPI's rsh launcher does) treat it as
// ssh, and PATH=state/bin:$PATH makes it the ssh of a test's commands.
func (c *Cluster) writeAgent() error {
	var table strings.Builder
	for _, h := range c.hosts {
		fmt.Fprintf(&table, "%s|%s) pid=%d ;;\n", h.name, h.addr, h.anchor.pid)
	}
	hosts := fmt.Sprintf("%s (or 10.77.%d.1-%d)", strings.Join(c.Hosts(), " "), c.subnet.x, len(c.hosts))
	script := fmt.Sprintf(agentScript, c.state, table.String(), hosts, c.nsenter)
	dir := filepath.Join(c.state, "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	c.agent = filepath.Join(dir, "ssh")
	return os.WriteFile(c.agent, []byte(script), 0o755)
}

// Agent returns the path of an executable that behaves like ssh for
// launchers (Open MPI's plm_rsh_agent, Hydra's -launcher-exec):
//
//	AGENT [ssh options] [user@]HOST COMMAND...
//
// runs sh -c "COMMAND..." inside HOST (a name or an address) in $HOME and
// exits with its status, 255 for its own errors. Unlike ssh, the command
// inherits the caller's environment, and user is ignored. It works from
// the hosts and from the test process.
//
// With Options.SSH it is a real ssh client instead, configured for the
// hosts' sshd: it works inside the hosts only, and forwards no
// environment, as ssh does.
func (c *Cluster) Agent() string { return c.agent }
