package pml

import (
	"encoding/binary"
	"fmt"

	"github.com/gompi/gompi/frameworks/btl"
)

// Fragment types.
const (
	typeMatch     uint8 = iota + 1 // eager: the whole message follows the header
	typeRTS                        // rendezvous request to send: header only
	typeCTS                        // clear to send: the receiver matched, send `accepted` bytes
	typeData                       // rendezvous payload at `offset`
	typeFin                        // the receiver read `accepted` bytes itself (single copy): the send is done
	typeCancel                     // the sender asks the receiver to drop its unmatched message
	typeCancelAck                  // the receiver's answer: flagCancelled if it dropped the message
)

// headerVersion 4: an eager header's third word is the send's mark, not
// its source (the transport names the sender).
const headerVersion = 4

// HeaderSize is the size of the engine's header in every fragment but
// eager ones, whose header stops before its fourth field: their size is the
// payload's, and the other fields are unused. 24 bytes spared let a
// message of up to 32 bytes travel in one cache line of btl sm.
const (
	HeaderSize      = 40
	MatchHeaderSize = 16
)

// An eager header fits btl.SmallHeaderSize exactly: a negative constant
// below would not compile.
const _ = uint(MatchHeaderSize-btl.SmallHeaderSize) + uint(btl.SmallHeaderSize-MatchHeaderSize)

// header is the engine's fixed binary header, little-endian:
//
//	0 version u8 | 1 type u8 | 2 flags u16 | 4 context u32 |
//	8 source i32, or an eager send's mark u32 | 12 tag i32 |
//	16 size, accepted, offset or mark u64 | 24 send request u64 |
//	32 receive request, token or time sent u64
//
// The words at 16 and 32 mean one thing per fragment type, and the struct
// gives each meaning its own field; encode and decode map them. An eager
// (match) fragment carries the first MatchHeaderSize bytes only, and its
// word at 8 is the send's mark: the sender's name for a message that it
// may cancel, or 0 for one it never will (a blocking send). Receivers
// take the source from the transport, which knows it.
type header struct {
	typ      uint8
	flags    uint16
	context  uint32
	source   int32
	tag      int32
	mark     uint32 // eager: the send's mark; cancel with flagEager: the mark of the message to drop
	size     uint64 // RTS: the message's size (an eager message's is its payload's)
	accepted uint64 // CTS, FIN: how many of its bytes the receiver takes
	offset   uint64 // data: where the payload goes in the message
	sreq     uint64 // RTS, CTS, FIN, cancel and its answer: the send request
	rreq     uint64 // CTS, data: the receive request
	token    uint64 // RTS with flagGet: the transport's token for the sender's buffer
	sent     int64  // RTS without flagGet: when its sender began to write it, in Unix ns (0: not told)
}

// words returns the values of the wire's words at 16 and 32 for h's type.
func (h *header) words() (n, req uint64) {
	switch h.typ {
	case typeRTS:
		if h.flags&flagGet == 0 {
			return h.size, uint64(h.sent)
		}
		return h.size, h.token
	case typeCTS:
		return h.accepted, h.rreq
	case typeData:
		return h.offset, h.rreq
	case typeFin:
		return h.accepted, 0
	case typeCancel:
		return uint64(h.mark), 0
	}
	return 0, 0
}

// setWords stores the wire's words at 16 and 32 in the fields of h's type.
func (h *header) setWords(n, req uint64) {
	switch h.typ {
	case typeRTS:
		h.size = n
		if h.flags&flagGet == 0 {
			h.sent = int64(req)
		} else {
			h.token = req
		}
	case typeCTS:
		h.accepted, h.rreq = n, req
	case typeData:
		h.offset, h.rreq = n, req
	case typeFin:
		h.accepted = n
	case typeCancel:
		h.mark = uint32(n)
	}
}

// Fragment flags.
const (
	// flagSync marks an RTS from a synchronous send: the CTS proves the match.
	flagSync uint16 = 1 << iota
	// flagGet marks an RTS whose payload the receiver may read itself from
	// the sender's memory with the transport's token (btl.SingleCopier).
	flagGet
	// flagCancelled marks a cancel's answer: the message was dropped unmatched.
	flagCancelled
	// flagEager marks a cancel, and its answer, of an eager message, named
	// by its mark; without it a cancel names an RTS by its send request.
	flagEager
	// flagReady marks an eager message or an RTS from a ready-mode send,
	// which MPI allows only once the receive is posted: one that finds no
	// posted receive is reported to the receive that takes it later.
	flagReady
	// flagVector, with flagGet, marks an RTS whose token names the
	// sender's blocks rather than one buffer (btl.ScatterCopier's
	// ExposeVector).
	flagVector
)

// encode writes h into b, which has room for it (MatchHeaderSize bytes
// for an eager fragment, HeaderSize for the others), and returns its bytes.
func (h *header) encode(b []byte) []byte {
	b = b[:MatchHeaderSize]
	b[0] = headerVersion
	b[1] = h.typ
	binary.LittleEndian.PutUint16(b[2:], h.flags)
	binary.LittleEndian.PutUint32(b[4:], h.context)
	binary.LittleEndian.PutUint32(b[12:], uint32(h.tag))
	if h.typ == typeMatch {
		binary.LittleEndian.PutUint32(b[8:], h.mark)
		return b
	}
	binary.LittleEndian.PutUint32(b[8:], uint32(h.source))
	b = b[:HeaderSize]
	n, req := h.words()
	binary.LittleEndian.PutUint64(b[16:], n)
	binary.LittleEndian.PutUint64(b[24:], h.sreq)
	binary.LittleEndian.PutUint64(b[32:], req)
	return b
}

// encodeMatch writes an eager fragment's header, encode's first
// MatchHeaderSize bytes with no flags, into b in two words, and returns
// it: a header struct built and passed on was copied 16 bytes at a time
// from the narrow stores that had just built it, which the processor
// cannot forward.
func encodeMatch(b []byte, cid, mark uint32, tag int32) []byte {
	b = b[:MatchHeaderSize]
	matchHeader(cid, mark, tag).Put(b)
	return b
}

// matchHeader is encodeMatch's header as the two words a btl.SmallSender
// takes in registers.
func matchHeader(cid, mark uint32, tag int32) btl.SmallHeader {
	return btl.SmallHeader{
		Lo: uint64(headerVersion) | uint64(typeMatch)<<8 | uint64(cid)<<32,
		Hi: uint64(mark) | uint64(uint32(tag))<<32,
	}
}

// decodeHeader decodes a fragment's header. An eager fragment's size is
// left zero: its payload's length is the message's.
func decodeHeader(b []byte) (header, error) {
	if len(b) == MatchHeaderSize && b[0] == headerVersion && b[1] == typeMatch {
		// Most fragments: one bounds check, no error path.
		return header{
			typ:     typeMatch,
			flags:   binary.LittleEndian.Uint16(b[2:4]),
			context: binary.LittleEndian.Uint32(b[4:8]),
			mark:    binary.LittleEndian.Uint32(b[8:12]),
			tag:     int32(binary.LittleEndian.Uint32(b[12:16])),
		}, nil
	}
	if len(b) < 2 {
		return header{}, fmt.Errorf("pml: header of %d bytes, want %d or %d", len(b), MatchHeaderSize, HeaderSize)
	}
	if b[0] != headerVersion {
		return header{}, fmt.Errorf("pml: header version %d, want %d", b[0], headerVersion)
	}
	typ := b[1]
	if typ < typeMatch || typ > typeCancelAck {
		return header{}, fmt.Errorf("pml: unknown fragment type %d", typ)
	}
	want := HeaderSize
	if typ == typeMatch {
		want = MatchHeaderSize
	}
	if len(b) != want {
		return header{}, fmt.Errorf("pml: header of %d bytes for a fragment of type %d, want %d", len(b), typ, want)
	}
	h := header{
		typ:     typ,
		flags:   binary.LittleEndian.Uint16(b[2:]),
		context: binary.LittleEndian.Uint32(b[4:]),
		tag:     int32(binary.LittleEndian.Uint32(b[12:])),
	}
	if typ == typeMatch {
		h.mark = binary.LittleEndian.Uint32(b[8:])
	} else {
		h.source = int32(binary.LittleEndian.Uint32(b[8:]))
		h.sreq = binary.LittleEndian.Uint64(b[24:])
		h.setWords(binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[32:]))
	}
	return h, nil
}
