package cluster

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// An anchor is a process that holds a set of namespaces for as long as it
// lives: sleep, exec'd by a setup script run by unshare, all one PID.
type anchor struct {
	cmd    *exec.Cmd
	pid    int
	net    string // its network namespace, as /proc/PID/ns/net reads: "net:[inode]"
	reaped bool
}

// hostScript sets a host up inside its new namespaces; $1 is the host's
// name, $2 the state directory, $3 "private" for a private /tmp, then the
// directories under /tmp that such a /tmp keeps shared. /sys is mounted again so that it shows the host's own
// interfaces; the machine's cgroups are carried over to it, as daemons
// that use cgroups (slurmd) need them.
const hostScript = `set -e
host=$1 state=$2 tmp=$3
shift 3
echo "$host" >/proc/sys/kernel/hostname
mount -t tmpfs -o mode=1777 "shm-$host" /dev/shm
mount --bind "$state/hosts" /etc/hosts
if [ -d /sys/fs/cgroup ]; then
	mkdir "$state/cgroup-$host"
	mount --rbind /sys/fs/cgroup "$state/cgroup-$host"
	mount -t sysfs sysfs /sys
	mount --move "$state/cgroup-$host" /sys/fs/cgroup
	rmdir "$state/cgroup-$host"
else
	mount -t sysfs sysfs /sys
fi
if [ "$tmp" = private ]; then
	# The shared /tmp is seen a moment through the private /dev/shm, to
	# mount the directories to keep from it onto the private /tmp.
	shared=/dev/shm/.shared-tmp
	mkdir "$shared"
	mount --rbind /tmp "$shared"
	mount -t tmpfs -o mode=1777 "tmp-$host" /tmp
	for dir; do
		mkdir -p "$dir"
		mount --rbind "$shared${dir#/tmp}" "$dir"
	done
	umount -R "$shared"
	rmdir "$shared"
fi
ip link set lo up
echo ready
exec sleep infinity >/dev/null`

// bridgeScript sets up the namespace that holds the hosts' switch.
const bridgeScript = `set -e
ip link add name br0 type bridge
ip link set br0 up
echo ready
exec sleep infinity >/dev/null`

// startAnchor starts an anchor in new namespaces of the kinds in nsFlags
// and returns once it runs; wait for its setup with ready. Its stderr goes
// to logPath. It gets SIGKILL when the test process dies, so a killed test
// leaves no host behind. (The kernel ties that signal to the thread that
// forked the anchor; Go ends a thread only when a goroutine exits locked
// to it, which the callers here never do.)
func startAnchor(nsFlags []string, script, logPath string, args ...string) (*anchor, *bufio.Reader, error) {
	argv := append(append([]string{}, nsFlags...), "sh", "-c", script, "anchor")
	cmd := exec.Command("unshare", append(argv, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	defer log.Close()
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return &anchor{cmd: cmd, pid: cmd.Process.Pid}, bufio.NewReader(out), nil
}

// ready waits until the anchor's setup is done and records its network
// namespace; on a failed setup it reaps the anchor and returns its stderr.
func (a *anchor) ready(out *bufio.Reader, logPath string) error {
	line, err := out.ReadString('\n')
	if line != "ready\n" {
		werr := a.wait()
		msg, _ := os.ReadFile(logPath)
		return fmt.Errorf("setup failed (%v, %v): %s", err, werr, strings.TrimSpace(string(msg)))
	}
	a.net, err = os.Readlink("/proc/" + strconv.Itoa(a.pid) + "/ns/net")
	return err
}

// wait reaps the anchor once it is dead.
func (a *anchor) wait() error {
	if a.reaped {
		return nil
	}
	a.reaped = true
	return a.cmd.Wait()
}
