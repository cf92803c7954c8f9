package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// modexKey is the key under which each rank publishes its endpoint.
const modexKey = "btl.tcp"

// Endpoint encoding, version 1: version byte, hostname length (uint8) and
// bytes, address count (uint8), then per address: family (4 or 6), the IP
// (4 or 16 bytes), port (uint16 little-endian), network prefix length (uint8).
const modexVersion = 1

// endpoint is what a rank publishes: where it listens.
type endpoint struct {
	host  string
	addrs []netip.Prefix // listening address with its network's length
	ports []uint16
}

var errModex = errors.New("malformed tcp endpoint")

func (e *endpoint) encode() ([]byte, error) {
	if len(e.host) > 255 || len(e.addrs) > 255 {
		return nil, fmt.Errorf("endpoint too large: %d-byte hostname, %d addresses (at most 255 each)", len(e.host), len(e.addrs))
	}
	b := []byte{modexVersion, byte(len(e.host))}
	b = append(b, e.host...)
	b = append(b, byte(len(e.addrs)))
	for i, p := range e.addrs {
		a := p.Addr()
		if a.Is4() {
			b = append(b, 4)
		} else {
			b = append(b, 6)
		}
		b = append(b, a.AsSlice()...)
		b = binary.LittleEndian.AppendUint16(b, e.ports[i])
		b = append(b, byte(p.Bits()))
	}
	return b, nil
}

func decodeEndpoint(b []byte) (endpoint, error) {
	var e endpoint
	if len(b) < 2 {
		return e, fmt.Errorf("%w: %d bytes", errModex, len(b))
	}
	if b[0] != modexVersion {
		return e, fmt.Errorf("%w: version %d, want %d (is every rank the same build?)", errModex, b[0], modexVersion)
	}
	hl := int(b[1])
	b = b[2:]
	if len(b) < hl+1 {
		return e, fmt.Errorf("%w: truncated hostname", errModex)
	}
	e.host = string(b[:hl])
	n := int(b[hl])
	b = b[hl+1:]
	for i := range n {
		if len(b) < 1 {
			return e, fmt.Errorf("%w: truncated at address %d", errModex, i)
		}
		size := 0
		switch b[0] {
		case 4:
			size = 4
		case 6:
			size = 16
		default:
			return e, fmt.Errorf("%w: address family %d", errModex, b[0])
		}
		if len(b) < 1+size+3 {
			return e, fmt.Errorf("%w: truncated at address %d", errModex, i)
		}
		a, _ := netip.AddrFromSlice(b[1 : 1+size])
		port := binary.LittleEndian.Uint16(b[1+size:])
		p, err := a.Prefix(int(b[3+size]))
		if err != nil || port == 0 {
			return e, fmt.Errorf("%w: address %d: %s port %d/%d", errModex, i, a, port, b[3+size])
		}
		e.addrs = append(e.addrs, netip.PrefixFrom(a, p.Bits()))
		e.ports = append(e.ports, port)
		b = b[4+size:]
	}
	if len(b) != 0 {
		return e, fmt.Errorf("%w: %d trailing bytes", errModex, len(b))
	}
	return e, nil
}
