// Package pml is the point-to-point messaging engine: matching of incoming
// messages to posted receives on (context, source, tag) in MPI's
// non-overtaking order, the unexpected queue, and the eager and rendezvous
// protocols over the btl modules. It knows world ranks only; communicators
// translate above it.
package pml

import (
	"encoding/binary"
	"fmt"
)

// Fragment types.
const (
	typeMatch     uint8 = iota + 1 // eager: the whole message follows the header
	typeRTS                        // rendezvous request to send: header only
	typeCTS                        // clear to send: the receiver matched, send `total` bytes
	typeData                       // rendezvous payload at offset `total`
	typeFin                        // the receiver read `total` bytes itself (single copy): the send is done
	typeCancel                     // the sender asks the receiver to drop its unmatched RTS
	typeCancelAck                  // the receiver's answer: flagCancelled if it dropped the RTS
)

const headerVersion = 2

// HeaderSize is the size of the engine's header in every fragment.
const HeaderSize = 40

// header is the engine's fixed binary header, little-endian:
//
//	0 version u8 | 1 type u8 | 2 flags u16 | 4 context u32 | 8 source i32 |
//	12 tag i32 | 16 total u64 | 24 send request u64 | 32 receive request u64
//
// total is the message size (match, RTS), the accepted size (CTS, FIN) or
// the payload offset (data).
type header struct {
	typ     uint8
	flags   uint16
	context uint32
	source  int32
	tag     int32
	total   uint64
	sreq    uint64
	rreq    uint64
}

// RTS flags.
const (
	// flagSync marks an RTS from a synchronous send: the CTS proves the match.
	flagSync uint16 = 1 << iota
	// flagGet marks an RTS whose payload the receiver may read itself from
	// the sender's memory; the receive request field carries the
	// transport's token for it (btl.SingleCopier).
	flagGet
	// flagCancelled marks a cancel's answer: the RTS was dropped unmatched.
	flagCancelled
)

func (h *header) encode(b []byte) []byte {
	b = b[:HeaderSize]
	b[0] = headerVersion
	b[1] = h.typ
	binary.LittleEndian.PutUint16(b[2:], h.flags)
	binary.LittleEndian.PutUint32(b[4:], h.context)
	binary.LittleEndian.PutUint32(b[8:], uint32(h.source))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.tag))
	binary.LittleEndian.PutUint64(b[16:], h.total)
	binary.LittleEndian.PutUint64(b[24:], h.sreq)
	binary.LittleEndian.PutUint64(b[32:], h.rreq)
	return b
}

func decodeHeader(b []byte) (header, error) {
	if len(b) != HeaderSize {
		return header{}, fmt.Errorf("pml: header of %d bytes, want %d", len(b), HeaderSize)
	}
	if b[0] != headerVersion {
		return header{}, fmt.Errorf("pml: header version %d, want %d", b[0], headerVersion)
	}
	h := header{
		typ:     b[1],
		flags:   binary.LittleEndian.Uint16(b[2:]),
		context: binary.LittleEndian.Uint32(b[4:]),
		source:  int32(binary.LittleEndian.Uint32(b[8:])),
		tag:     int32(binary.LittleEndian.Uint32(b[12:])),
		total:   binary.LittleEndian.Uint64(b[16:]),
		sreq:    binary.LittleEndian.Uint64(b[24:]),
		rreq:    binary.LittleEndian.Uint64(b[32:]),
	}
	if h.typ < typeMatch || h.typ > typeCancelAck {
		return header{}, fmt.Errorf("pml: unknown fragment type %d", h.typ)
	}
	return h, nil
}
