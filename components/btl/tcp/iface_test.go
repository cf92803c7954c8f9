package tcp

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

var fakeIfaces = []netIface{
	{Name: "lo", Up: true, Loopback: true, Addrs: prefixes("127.0.0.1/8", "::1/128")},
	{Name: "eth0", Up: true, Addrs: prefixes("192.0.2.2/24", "fd00::2/64", "fe80::1/64")},
	{Name: "eth1", Addrs: prefixes("10.0.0.5/8")},
	{Name: "ib0", Up: true, Addrs: prefixes("10.1.0.1/16")},
}

func TestSelectAddrs(t *testing.T) {
	for _, tc := range []struct {
		include, exclude []string
		want             string
	}{
		{nil, nil, "lo:127.0.0.1/8 lo:::1/128 eth0:192.0.2.2/24 eth0:fd00::2/64 ib0:10.1.0.1/16"},
		{[]string{"eth0"}, nil, "eth0:192.0.2.2/24 eth0:fd00::2/64"},
		{[]string{"10.0.0.0/8"}, nil, "ib0:10.1.0.1/16"},
		{[]string{"fd00::/64", "lo"}, nil, "lo:127.0.0.1/8 lo:::1/128 eth0:fd00::2/64"},
		{[]string{"eth1"}, nil, ""}, // down
		{[]string{"203.0.113.0/24"}, nil, ""},
		{nil, []string{"lo", "192.0.2.0/24"}, "eth0:fd00::2/64 ib0:10.1.0.1/16"},
		{nil, []string{"10.1.2.3/8"}, "lo:127.0.0.1/8 lo:::1/128 eth0:192.0.2.2/24 eth0:fd00::2/64"},
	} {
		inc, err := parseFilter("btl_tcp_if_include", tc.include, fakeIfaces)
		if err != nil {
			t.Fatal(err)
		}
		exc, err := parseFilter("btl_tcp_if_exclude", tc.exclude, fakeIfaces)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range selectAddrs(fakeIfaces, inc, exc) {
			got = append(got, a.iface+":"+a.prefix.String())
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("include %q exclude %q: got %q, want %q", tc.include, tc.exclude, s, tc.want)
		}
	}
}

func TestParseFilterErrors(t *testing.T) {
	for _, tc := range []struct {
		entry string
		want  []string
	}{
		{"eth9", []string{`"eth9"`, "eth0 (192.0.2.2/24, fd00::2/64, fe80::1/64)", "eth1 (10.0.0.5/8, down)"}},
		{"10.0.0.0/33", []string{`"10.0.0.0/33"`, "CIDR"}},
		{"fd00::/zz", []string{`"fd00::/zz"`, "CIDR"}},
		{"10.1.0.1", []string{`"10.1.0.1"`, "10.1.0.1/32"}},
	} {
		_, err := parseFilter("btl_tcp_if_include", []string{tc.entry}, fakeIfaces)
		if err == nil {
			t.Errorf("%q: no error", tc.entry)
			continue
		}
		for _, w := range append(tc.want, "btl_tcp_if_include") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not mention %q", tc.entry, err, w)
			}
		}
	}
}

func TestOpenRejectsBadInterfaceLists(t *testing.T) {
	ifaces, err := systemIfaces()
	if err != nil || len(ifaces) == 0 {
		t.Skip("no interfaces to list:", err)
	}
	for _, tc := range []struct {
		settings []string
		want     []string
	}{
		{[]string{"btl_tcp_if_include", "no-such-if0"},
			[]string{"no-such-if0", "btl_tcp_if_include", ifaces[0].Name}},
		{[]string{"btl_tcp_if_exclude", "no-such-if0"},
			[]string{"no-such-if0", "btl_tcp_if_exclude", ifaces[0].Name}},
	} {
		_, err := openComponent(t, tc.settings...)
		if !errors.Is(err, mca.ErrFatal) {
			t.Errorf("%q: error %v, want one wrapping mca.ErrFatal", tc.settings, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not mention %q", tc.settings, err, w)
			}
		}
	}
}

func TestNoInterfaceMeansNoModule(t *testing.T) {
	c, err := openComponent(t, "btl_tcp_if_include", "203.0.113.0/24")
	if err != nil {
		t.Fatal(err)
	}
	mods, err := c.Init(context.Background(), btl.InitEnv{
		Rank: 0, Size: 2, Secret: []byte("s"), Modex: btltest.NewModex().For(0), Receiver: btltest.NewReceiver(),
	})
	if err != nil || len(mods) != 0 {
		t.Fatalf("Init = %v, %v; want no module and no error", mods, err)
	}
}

func TestInitNeedsASecret(t *testing.T) {
	c, err := openComponent(t, loopbackOnly...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Init(context.Background(), btl.InitEnv{Rank: 0, Size: 2, Modex: btltest.NewModex().For(0), Receiver: btltest.NewReceiver()})
	if err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("Init without a secret: %v", err)
	}
}

func TestRoute(t *testing.T) {
	m := &Module{host: "a", local: []localAddr{
		{iface: "lo", prefix: netip.MustParsePrefix("127.0.0.1/8"), loopback: true},
		{iface: "eth0", prefix: netip.MustParsePrefix("192.0.2.2/24")},
	}}
	ep := func(host string, addrs ...string) endpoint {
		e := endpoint{host: host}
		for i, a := range addrs {
			e.addrs = append(e.addrs, netip.MustParsePrefix(a))
			e.ports = append(e.ports, uint16(1000+i))
		}
		return e
	}
	for _, tc := range []struct {
		ep   endpoint
		want string
	}{
		{ep("a", "198.51.100.7/24", "192.0.2.9/24", "127.0.0.1/8", "::1/128"),
			"[127.0.0.1:1002 [::1]:1003 192.0.2.9:1001 198.51.100.7:1000]"},
		{ep("b", "127.0.0.1/8", "198.51.100.7/24", "192.0.2.9/24"),
			"[192.0.2.9:1002 198.51.100.7:1001]"},
		{ep("b", "127.0.0.1/8", "::1/128"), "[]"},
	} {
		if got := fmt.Sprint(m.route(tc.ep)); got != tc.want {
			t.Errorf("route(%v) = %s, want %s", tc.ep, got, tc.want)
		}
	}
}

func TestAddProcsSkipsPeersWithoutEndpoint(t *testing.T) {
	c, err := openComponent(t)
	if err != nil {
		t.Fatal(err)
	}
	mx := btltest.NewModex()
	ctx := context.Background()
	good, _ := (&endpoint{host: "h", addrs: prefixes("127.0.0.1/8"), ports: []uint16{1}}).encode()
	mx.For(1).Put(ctx, modexKey, good)
	mx.For(2).Put(ctx, modexKey, []byte{9, 9, 9}) // rank 2's is malformed; rank 3 published none
	m := newModule(c.cfg, btl.InitEnv{Rank: 0, Size: 4, Modex: mx.For(0)}, "h", testLogger())
	reach, err := m.AddProcs(ctx, []btl.Proc{{Rank: 1}, {Rank: 2}, {Rank: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(reach) != "[true false false]" {
		t.Fatalf("reach = %v", reach)
	}
	if _, err := m.AddProcs(ctx, []btl.Proc{{Rank: 4}}); err == nil {
		t.Fatal("AddProcs accepted a rank out of range")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.AddProcs(cancelled, []btl.Proc{{Rank: 3}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("AddProcs with a cancelled context: %v", err)
	}
}

func TestEndpointEncoding(t *testing.T) {
	e := endpoint{host: "node-17", addrs: prefixes("127.0.0.1/8", "fd00::2/64"), ports: []uint16{40000, 1}}
	b, err := e.encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeEndpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d) != fmt.Sprint(e) {
		t.Fatalf("decoded %v, want %v", d, e)
	}
	for i := range b {
		if _, err := decodeEndpoint(b[:i]); err == nil {
			t.Errorf("a %d-byte prefix decoded", i)
		}
	}
	if _, err := decodeEndpoint(append(b, 0)); err == nil {
		t.Error("a trailing byte decoded")
	}
	b[0] = 2
	if _, err := decodeEndpoint(b); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: %v", err)
	}
}

// A malformed subnet, and both lists set, are refused when the parameters
// are resolved, as gompirun does before launch, not by each rank's Open.
func TestResolveRejectsBadSubnets(t *testing.T) {
	reg := params.NewRegistry()
	register(reg.Scope("btl", "tcp"))
	for _, tc := range []struct{ name, value, want string }{
		{"btl_tcp_if_include", "lo,300.1.1.1/8", `parameter btl_tcp_if_include: value "lo,300.1.1.1/8" from command line: "300.1.1.1/8" is not a valid CIDR subnet`},
		{"btl_tcp_if_exclude", "10.1.0.1", `parameter btl_tcp_if_exclude: value "10.1.0.1" from command line: "10.1.0.1" is an address, not an interface or subnet: write 10.1.0.1/32`},
		{"btl_tcp_if_exclude", "eth0", `parameters btl_tcp_if_include (value "lo" from command line) and btl_tcp_if_exclude (value "eth0" from command line) exclude each other`},
	} {
		_, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: "btl_tcp_if_include", Value: "lo"}, {Name: tc.name, Value: tc.value}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	if _, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: "btl_tcp_if_include", Value: "eth9,10.0.0.0/8,fd00::/64"}}}); err != nil {
		t.Errorf("names and subnets: %v", err)
	}
}
