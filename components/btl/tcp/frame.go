package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gompi/gompi/frameworks/btl"
)

// Frame header layout, little-endian, FrameHeaderSize bytes:
//
//	0  magic        uint32  FrameMagic ("GMPF")
//	4  version      uint8   FrameVersion
//	5  flags        uint8   0, or flagBye
//	6  header len   uint16  1..btl.MaxHeaderSize (0 for bye)
//	8  payload len  uint64  0..MaxPayload (0 for bye)
//
// The upper layer's header and then the payload follow.
const (
	FrameHeaderSize = 16
	FrameMagic      = 0x46504d47 // "GMPF" read as little-endian bytes
	FrameVersion    = 1
	// MaxPayload is the hard cap on one fragment's payload: a larger length
	// in a header means a corrupt stream, never an allocation.
	MaxPayload = 1 << 30
)

// flagBye marks a goodbye frame: the sender is finalizing, so the EOF that
// follows is not a failure.
const flagBye = 1

// ErrCorruptFrame marks a frame header that does not decode.
var ErrCorruptFrame = errors.New("btl tcp: corrupt frame")

// FrameHeader is a decoded frame header.
type FrameHeader struct {
	HeaderLen  int  // bytes of upper-layer header that follow
	PayloadLen int  // bytes of payload after the header
	Bye        bool // the sender is finalizing; no header or payload
}

// DecodeFrameHeader decodes and validates the first FrameHeaderSize bytes
// of b. Errors wrap ErrCorruptFrame; b shorter than a header is an error.
func DecodeFrameHeader(b []byte) (FrameHeader, error) {
	if len(b) < FrameHeaderSize {
		return FrameHeader{}, fmt.Errorf("%w: %d bytes, want %d", ErrCorruptFrame, len(b), FrameHeaderSize)
	}
	if m := binary.LittleEndian.Uint32(b); m != FrameMagic {
		return FrameHeader{}, fmt.Errorf("%w: bad magic %#08x", ErrCorruptFrame, m)
	}
	if v := b[4]; v != FrameVersion {
		return FrameHeader{}, fmt.Errorf("%w: version %d, want %d", ErrCorruptFrame, v, FrameVersion)
	}
	flags := b[5]
	hlen := binary.LittleEndian.Uint16(b[6:])
	plen := binary.LittleEndian.Uint64(b[8:])
	switch {
	case flags == flagBye:
		if hlen != 0 || plen != 0 {
			return FrameHeader{}, fmt.Errorf("%w: goodbye frame with %d header and %d payload bytes", ErrCorruptFrame, hlen, plen)
		}
		return FrameHeader{Bye: true}, nil
	case flags != 0:
		return FrameHeader{}, fmt.Errorf("%w: unknown flags %#02x", ErrCorruptFrame, flags)
	case hlen == 0 || hlen > btl.MaxHeaderSize:
		return FrameHeader{}, fmt.Errorf("%w: header of %d bytes (must be 1-%d)", ErrCorruptFrame, hlen, btl.MaxHeaderSize)
	case plen > MaxPayload:
		return FrameHeader{}, fmt.Errorf("%w: payload of %d bytes exceeds the %d-byte cap", ErrCorruptFrame, plen, MaxPayload)
	}
	return FrameHeader{HeaderLen: int(hlen), PayloadLen: int(plen)}, nil
}

// Put encodes h into the first FrameHeaderSize bytes of b.
func (h FrameHeader) Put(b []byte) {
	_ = b[FrameHeaderSize-1]
	binary.LittleEndian.PutUint32(b, FrameMagic)
	b[4] = FrameVersion
	b[5] = 0
	if h.Bye {
		b[5] = flagBye
	}
	binary.LittleEndian.PutUint16(b[6:], uint16(h.HeaderLen))
	binary.LittleEndian.PutUint64(b[8:], uint64(h.PayloadLen))
}
