package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// tools are the programs the package runs, with the Debian package that
// provides each.
var tools = []struct{ name, pkg string }{
	{"ip", "iproute2"},
	{"nsenter", "util-linux"},
	{"unshare", "util-linux"},
	{"mount", "mount"},
	{"sh", "dash"},
	{"sleep", "coreutils"},
}

// probeScript does, in throwaway namespaces, each kind of thing Up does:
// a bridge, a veth pair, a tmpfs, a sysfs and a hostname.
const probeScript = `set -e
ip link add name br0 type bridge
ip link add name va type veth peer name vb
mount -t tmpfs probe /dev/shm
mount -t sysfs sysfs /sys
echo probe >/proc/sys/kernel/hostname`

// Available reports whether clusters can be built here: nil if so,
// otherwise an error that says what is missing.
func Available() error {
	if uid := os.Geteuid(); uid != 0 {
		return fmt.Errorf("cluster: building hosts needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN for network, UTS, IPC and mount namespaces); running as uid %d", uid)
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t.name); err != nil {
			return fmt.Errorf("cluster: building hosts needs %s (Debian package %s): %w", t.name, t.pkg, err)
		}
	}
	out, err := exec.Command("unshare", "--net", "--uts", "--ipc", "--mount", "--propagation", "private",
		"sh", "-c", probeScript).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cluster: cannot build namespaces here (a VM or a privileged container is needed; an unprivileged container cannot): %v: %s",
			err, strings.TrimSpace(string(out)))
	}
	return nil
}
