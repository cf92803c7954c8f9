package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gompi/gompi/frameworks/btl"
)

// Frame header layout, little-endian, frameHeaderSize bytes:
//
//	0  magic        uint32  frameMagic ("GMPF")
//	4  version      uint8   frameVersion
//	5  flags        uint8   0, or flagBye
//	6  header len   uint16  1..btl.MaxHeaderSize (0 for bye)
//	8  payload len  uint64  0..maxPayload (0 for bye)
//
// The upper layer's header and then the payload follow.
const (
	frameHeaderSize = 16
	frameMagic      = 0x46504d47 // "GMPF" read as little-endian bytes
	frameVersion    = 1
	// maxPayload is the hard cap on one fragment's payload: a larger length
	// in a header means a corrupt stream, never an allocation.
	maxPayload = 1 << 30
)

// flagBye marks a goodbye frame: the sender is finalizing, so the EOF that
// follows is not a failure.
const flagBye = 1

// errCorruptFrame marks a frame header that does not decode.
var errCorruptFrame = errors.New("corrupt frame")

// frameHeader is a decoded frame header.
type frameHeader struct {
	HeaderLen  int  // bytes of upper-layer header that follow
	PayloadLen int  // bytes of payload after the header
	Bye        bool // the sender is finalizing; no header or payload
}

// decodeFrameHeader decodes and validates the first frameHeaderSize bytes
// of b. Errors wrap errCorruptFrame; b shorter than a header is an error.
func decodeFrameHeader(b []byte) (frameHeader, error) {
	if len(b) < frameHeaderSize {
		return frameHeader{}, fmt.Errorf("%w: %d bytes, want %d", errCorruptFrame, len(b), frameHeaderSize)
	}
	if m := binary.LittleEndian.Uint32(b); m != frameMagic {
		return frameHeader{}, fmt.Errorf("%w: bad magic %#08x", errCorruptFrame, m)
	}
	if v := b[4]; v != frameVersion {
		return frameHeader{}, fmt.Errorf("%w: version %d, want %d", errCorruptFrame, v, frameVersion)
	}
	flags := b[5]
	hlen := binary.LittleEndian.Uint16(b[6:])
	plen := binary.LittleEndian.Uint64(b[8:])
	switch {
	case flags == flagBye:
		if hlen != 0 || plen != 0 {
			return frameHeader{}, fmt.Errorf("%w: goodbye frame with %d header and %d payload bytes", errCorruptFrame, hlen, plen)
		}
		return frameHeader{Bye: true}, nil
	case flags != 0:
		return frameHeader{}, fmt.Errorf("%w: unknown flags %#02x", errCorruptFrame, flags)
	case hlen == 0 || hlen > btl.MaxHeaderSize:
		return frameHeader{}, fmt.Errorf("%w: header of %d bytes (must be 1-%d)", errCorruptFrame, hlen, btl.MaxHeaderSize)
	case plen > maxPayload:
		return frameHeader{}, fmt.Errorf("%w: payload of %d bytes exceeds the %d-byte cap", errCorruptFrame, plen, maxPayload)
	}
	return frameHeader{HeaderLen: int(hlen), PayloadLen: int(plen)}, nil
}

// Put encodes h into the first frameHeaderSize bytes of b.
func (h frameHeader) Put(b []byte) {
	_ = b[frameHeaderSize-1]
	binary.LittleEndian.PutUint32(b, frameMagic)
	b[4] = frameVersion
	b[5] = 0
	if h.Bye {
		b[5] = flagBye
	}
	binary.LittleEndian.PutUint16(b[6:], uint16(h.HeaderLen))
	binary.LittleEndian.PutUint64(b[8:], uint64(h.PayloadLen))
}
