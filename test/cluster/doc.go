// Package cluster builds several simulated hosts on one Linux machine for
// gompi's multi-host tests.
//
// Each host has its own network namespace (one address on eth0, cabled to
// a bridge that lives in a namespace of its own, no default route), its
// own hostname (UTS namespace), SysV IPC, mount namespace with a private
// /dev/shm (tmpfs), a /sys that shows only its own interfaces, and an
// /etc/hosts that resolves h1..hN. Files elsewhere (the repository, /tmp
// and go test's binaries under it; Options.PrivateTmp gives each host its
// own /tmp) and the PID namespace are shared, so the test process sees and
// can kill everything that runs on a host.
//
// A host is held by an anchor process (sleep, started through unshare);
// commands enter it with nsenter. The namespaces have no names: nothing
// appears in /run/netns or in the root network namespace, so clusters
// built at once by parallel tests and by several test binaries cannot
// collide, and a test binary that dies takes its anchors with it
// (they get SIGKILL when it exits). Only the subnet, 10.77.X.0/24, is
// chosen per cluster, under a lock file in /run/lock, so that addresses
// in logs name one cluster.
//
// Launchers reach the hosts through Agent, an ssh stand-in that enters a
// host directly; with Options.SSH every host runs a real sshd and Agent
// is a real ssh client for them. WriteHostfile, LinkDown and Leftovers serve
// the tests of a job across hosts: where it ran, how it copes with a lost
// host, and that nothing of it survives on any host.
//
// Building hosts needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN), iproute2
// and util-linux (and openssh-server and openssh-client for
// Options.SSH); Up skips the test when they are missing and says why, as
// Available does.
package cluster
