package tcp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Congestion control. Linux gives every TCP socket the system's algorithm
// (net.ipv4.tcp_congestion_control), bbr on this project's machines. bbr
// paces the sender at the bandwidth it has measured, which suits paths
// with a bottleneck queue; between two ranks of one host nothing queues
// and nothing is lost, and the pacing only holds the sender back: a C
// program streaming 128-512 KiB messages over loopback moved 2.2-3.9 GB/s
// with bbr and 5.4-9.6 with reno, and a 4 MiB ping-pong took 1,000 us one
// way instead of 500 (docs/performance.md, tcp). So by
// default a connection between two ranks of one host uses reno, which
// every kernel builds in and lets every process choose; connections
// between hosts keep the system's algorithm.
const (
	congestionAuto   = "auto"   // reno on one host, the system's between hosts
	congestionSystem = "system" // the system's algorithm everywhere
	sameHostAlgo     = "reno"
	maxAlgoName      = 15 // TCP_CA_NAME_MAX less the terminating NUL
)

// pacedFragment bounds the rendezvous fragments over a connection whose
// algorithm paces the sender (paces). Between two simulated hosts (veth,
// bbr), 1 MiB messages in 128 KiB fragments moved 1.4-1.8 times the
// bandwidth of one 896 KiB fragment (medians of 8 alternating runs) and a
// 1 MiB ping-pong took 252 us one way against 587-604; 64 and 256 KiB
// fragments did less well. bbr sends from its pacing timer, and the likely
// reason is that those sends wait while a long write holds the socket.
// With reno or cubic the one fragment was faster (8.0-8.6 GB/s against
// 5.1, 221 us against 283), so unpaced connections keep
// btl_tcp_max_send_size.
const pacedFragment = 128 << 10

// paces reports whether congestion control algo paces the sender itself.
func paces(algo string) bool { return strings.HasPrefix(algo, "bbr") }

// validCongestion checks a value of btl_tcp_congestion: auto, system, or
// the name of an algorithm, which Open then asks the kernel about.
func validCongestion(v any) error {
	s := v.(string)
	if s == congestionAuto || s == congestionSystem {
		return nil
	}
	if s == "" || len(s) > maxAlgoName || strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return fmt.Errorf("%q is neither %s, %s nor the name of a congestion control algorithm "+
			"(lower-case letters, digits and _, at most %d)", s, congestionAuto, congestionSystem, maxAlgoName)
	}
	return nil
}

// congestionFor is the algorithm to set on a connection between local and
// remote, or "" to keep the system's.
func (cfg *config) congestionFor(local, remote net.Addr) string {
	switch cfg.congestion {
	case congestionSystem:
		return ""
	case congestionAuto:
		if sameHost(local, remote) {
			return sameHostAlgo
		}
		return ""
	}
	return cfg.congestion
}

// sameHost reports whether a connection's two ends are on this host: the
// peer is a loopback address, or the kernel routed it locally, which
// gives the connection the peer's address as its source too.
func sameHost(local, remote net.Addr) bool {
	l, ok := local.(*net.TCPAddr)
	r, ok2 := remote.(*net.TCPAddr)
	return ok && ok2 && (r.IP.IsLoopback() || r.IP.Equal(l.IP))
}

// setCongestion sets the congestion control algorithm of nc's socket.
func setCongestion(nc *net.TCPConn, algo string) error {
	return onSocket(nc, func(fd int) error {
		return unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, algo)
	})
}

// congestionOf is the congestion control algorithm of rc's socket.
func congestionOf(rc syscall.RawConn) (algo string, err error) {
	err = onRaw(rc, func(fd int) (err error) {
		algo, err = unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		return err
	})
	return strings.TrimRight(algo, "\x00"), err
}

// onSocket runs f on nc's descriptor and returns what f or the descriptor's
// access failed with.
func onSocket(nc *net.TCPConn, f func(fd int) error) error {
	rc, err := nc.SyscallConn()
	if err != nil {
		return err
	}
	return onRaw(rc, f)
}

func onRaw(rc syscall.RawConn, f func(fd int) error) error {
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// checkCongestion asks the kernel, on a socket of its own, whether this
// process may give its connections algo, so that a name it refuses fails
// at start-up rather than on each connection.
func checkCongestion(param, algo string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: cannot open a socket to try %q: %w", param, algo, err)
	}
	defer unix.Close(fd)
	err = unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, algo)
	if err == nil {
		return nil
	}
	var why string
	switch {
	case errors.Is(err, unix.ENOENT):
		why = "the kernel has no such algorithm; it has " + sysctlList("tcp_available_congestion_control")
	case errors.Is(err, unix.EPERM):
		why = "this process may not choose it; it may choose " + sysctlList("tcp_allowed_congestion_control") +
			" (net.ipv4.tcp_allowed_congestion_control)"
	default:
		why = err.Error()
	}
	return fmt.Errorf("%s: cannot use congestion control %q: %s; or set %s or %s",
		param, algo, why, congestionAuto, congestionSystem)
}

// sysctlList reads a list of algorithms from /proc/sys/net/ipv4.
func sysctlList(name string) string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/" + name)
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return strings.Join(strings.Fields(string(b)), ", ")
}
