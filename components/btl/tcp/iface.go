package tcp

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// netIface is what interface selection needs to know of one interface.
type netIface struct {
	Name         string
	Up, Loopback bool
	Addrs        []netip.Prefix
}

// localAddr is one address this process listens on.
type localAddr struct {
	iface    string
	prefix   netip.Prefix // the address and its network's length
	loopback bool
}

// systemIfaces lists the machine's interfaces.
func systemIfaces() ([]netIface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list network interfaces: %w", err)
	}
	out := make([]netIface, 0, len(ifs))
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			return nil, fmt.Errorf("addresses of interface %s: %w", ifc.Name, err)
		}
		ni := netIface{Name: ifc.Name, Up: ifc.Flags&net.FlagUp != 0, Loopback: ifc.Flags&net.FlagLoopback != 0}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(ipn.IP)
			if !ok {
				continue
			}
			ones, _ := ipn.Mask.Size()
			ni.Addrs = append(ni.Addrs, netip.PrefixFrom(ip.Unmap(), ones))
		}
		out = append(out, ni)
	}
	return out, nil
}

// ifaceFilter is a parsed btl_tcp_if_include or _if_exclude list.
type ifaceFilter struct {
	names []string
	nets  []netip.Prefix
}

func (f ifaceFilter) empty() bool { return len(f.names) == 0 && len(f.nets) == 0 }

// matches reports whether address a of interface name is in the list.
func (f ifaceFilter) matches(name string, a netip.Addr) bool {
	if slices.Contains(f.names, name) {
		return true
	}
	for _, n := range f.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// parseFilter parses the entries of the parameter named param: interface
// names, which must exist, and CIDR subnets.
func parseFilter(param string, entries []string, ifaces []netIface) (ifaceFilter, error) {
	var f ifaceFilter
	for _, e := range entries {
		p, isNet, err := parseEntry(e)
		if err != nil {
			return ifaceFilter{}, fmt.Errorf("%s: %w", param, err)
		}
		if isNet {
			f.nets = append(f.nets, p)
			continue
		}
		if !slices.ContainsFunc(ifaces, func(i netIface) bool { return i.Name == e }) {
			return ifaceFilter{}, fmt.Errorf("%s: no interface is named %q; this machine has %s", param, e, describeIfaces(ifaces))
		}
		f.names = append(f.names, e)
	}
	return f, nil
}

// parseEntry parses one entry of an interface list: a CIDR subnet
// (isNet), else an interface's name, which only the host can check.
func parseEntry(e string) (subnet netip.Prefix, isNet bool, err error) {
	if strings.Contains(e, "/") {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return netip.Prefix{}, false, fmt.Errorf("%q is not a valid CIDR subnet: %w", e, err)
		}
		return p.Masked(), true, nil
	}
	if a, err := netip.ParseAddr(e); err == nil {
		return netip.Prefix{}, false, fmt.Errorf("%q is an address, not an interface or subnet: write %s/%d for that address alone",
			e, e, a.BitLen())
	}
	return netip.Prefix{}, false, nil
}

// checkIfaceList is the interface lists' Validate: their subnets' syntax,
// which gompirun checks before launch (names need the ranks' host).
func checkIfaceList(v any) error {
	for _, e := range v.([]string) {
		if _, _, err := parseEntry(e); err != nil {
			return err
		}
	}
	return nil
}

// selectAddrs returns the usable addresses of the interfaces that are up
// and pass the filters: those include lists, or all but those exclude lists.
func selectAddrs(ifaces []netIface, include, exclude ifaceFilter) []localAddr {
	var out []localAddr
	for _, ifc := range ifaces {
		if !ifc.Up {
			continue
		}
		for _, p := range ifc.Addrs {
			a := p.Addr()
			// Link-local IPv6 needs a zone, which does not travel to other hosts.
			if a.IsUnspecified() || a.IsMulticast() || (a.Is6() && a.IsLinkLocalUnicast()) {
				continue
			}
			if !include.empty() && !include.matches(ifc.Name, a) {
				continue
			}
			if exclude.matches(ifc.Name, a) {
				continue
			}
			out = append(out, localAddr{iface: ifc.Name, prefix: p, loopback: ifc.Loopback || a.IsLoopback()})
		}
	}
	return out
}

// describeIfaces lists interfaces for error messages: "eth0 (192.0.2.2/24), lo (127.0.0.1/8, down)".
func describeIfaces(ifaces []netIface) string {
	if len(ifaces) == 0 {
		return "no network interfaces"
	}
	parts := make([]string, len(ifaces))
	for i, ifc := range ifaces {
		var d []string
		for _, a := range ifc.Addrs {
			d = append(d, a.String())
		}
		if !ifc.Up {
			d = append(d, "down")
		}
		if len(d) == 0 {
			d = append(d, "no address")
		}
		parts[i] = fmt.Sprintf("%s (%s)", ifc.Name, strings.Join(d, ", "))
	}
	return strings.Join(parts, ", ")
}
