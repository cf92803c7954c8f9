package tcp

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
)

// connectedAlgos sends one frame from rank 0 to rank 1 and returns the
// congestion control of the connection's two ends. Each end sets its
// options before the connection carries a frame, so the frame's arrival
// says both are set.
func connectedAlgos(t *testing.T, settings ...string) (dialer, acceptor string) {
	t.Helper()
	j := newJob(t, 2, append(append([]string{}, loopbackOnly...), settings...)...)
	if err := j.mods[0].Send(context.Background(), 1, []byte("h"), nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the frame", func() bool { return j.recvs[1].Count() == 1 })
	var algos [2]string
	for r, m := range j.mods {
		c := m.peers[1-r].conn.Load()
		if c == nil {
			t.Fatalf("rank %d has no connection to rank %d", r, 1-r)
		}
		algo, err := congestionOf(c.rc)
		if err != nil {
			t.Fatal(err)
		}
		algos[r] = algo
	}
	return algos[0], algos[1]
}

func systemAlgo(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		t.Skipf("no system congestion control to compare with: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func TestCongestionOfConnections(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{
		{"", sameHostAlgo}, // the default, auto: both ends on this host
		{congestionAuto, sameHostAlgo},
		{congestionSystem, systemAlgo(t)},
		{"reno", "reno"},
	} {
		var settings []string
		if tc.value != "" {
			settings = []string{"btl_tcp_congestion", tc.value}
		}
		d, a := connectedAlgos(t, settings...)
		if d != tc.want || a != tc.want {
			t.Errorf("btl_tcp_congestion %q: the dialer's end uses %q, the acceptor's %q; want %q",
				tc.value, d, a, tc.want)
		}
	}
}

func TestCongestionFor(t *testing.T) {
	addr := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 1} }
	for _, tc := range []struct {
		value, local, remote, want string
	}{
		{congestionAuto, "127.0.0.1", "127.0.0.1", sameHostAlgo},
		{congestionAuto, "::1", "::1", sameHostAlgo},
		{congestionAuto, "192.0.2.2", "192.0.2.2", sameHostAlgo}, // routed locally: one host
		{congestionAuto, "192.0.2.2", "192.0.2.3", ""},           // another host
		{congestionSystem, "127.0.0.1", "127.0.0.1", ""},
		{"cubic", "192.0.2.2", "192.0.2.3", "cubic"},
	} {
		cfg := config{congestion: tc.value}
		if got := cfg.congestionFor(addr(tc.local), addr(tc.remote)); got != tc.want {
			t.Errorf("%s between %s and %s: %q, want %q", tc.value, tc.local, tc.remote, got, tc.want)
		}
	}
}

func TestCongestionRefused(t *testing.T) {
	// Names the parameter's validation refuses before any socket is tried.
	for _, tc := range []struct {
		value string
		want  string
	}{
		{"Reno", "lower-case"},
		{"", "neither auto, system"},
		{"a_name_far_too_long", "at most 15"},
		{"re no", "lower-case"},
	} {
		err := validCongestion(tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "auto") {
			t.Errorf("btl_tcp_congestion %q: error %v, want one that says %q and names auto", tc.value, err, tc.want)
		}
	}
	// A name the kernel does not know fails Open, saying what it knows.
	_, err := openComponent(t, "btl_tcp_congestion", "nosuchalgo")
	if err == nil {
		t.Fatal("btl_tcp_congestion nosuchalgo was accepted")
	}
	for _, w := range []string{"btl_tcp_congestion", `"nosuchalgo"`, "no such algorithm", "reno", "auto", "system"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestPacedFragments: a connection whose algorithm paces the sender (bbr)
// takes rendezvous fragments of at most pacedFragment; one that does not
// (reno), and a peer not connected yet, btl_tcp_max_send_size.
func TestPacedFragments(t *testing.T) {
	if err := checkCongestion("btl_tcp_congestion", "bbr"); err != nil {
		t.Skipf("this process may not choose bbr: %v", err)
	}
	for _, tc := range []struct {
		algo string
		want int
	}{
		{"reno", 4 << 20},
		{"bbr", pacedFragment},
	} {
		j := newJob(t, 2, append(append([]string{}, loopbackOnly...), "btl_tcp_congestion", tc.algo, "btl_tcp_max_send_size", "4m")...)
		if got := j.mods[0].MaxSendSizeTo(1); got != 4<<20 {
			t.Errorf("%s before connecting: %d, want %d", tc.algo, got, 4<<20)
		}
		if err := j.mods[0].Send(context.Background(), 1, []byte("h"), nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the frame", func() bool { return j.recvs[1].Count() == 1 })
		for r, m := range j.mods {
			if got := m.MaxSendSizeTo(1 - r); got != tc.want {
				t.Errorf("%s: rank %d's fragments to rank %d at most %d bytes, want %d", tc.algo, r, 1-r, got, tc.want)
			}
		}
	}
	if !paces("bbr") || paces("reno") || paces("cubic") {
		t.Error("paces: want bbr only")
	}
}
