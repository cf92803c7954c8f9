package sm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/btl"
)

// A ring carries fragments from one local rank to another: a single
// producer (the sender, one goroutine at a time) and a single consumer
// (the receiver, one poller at a time). tail and head count bytes since the
// ring was made; a record starts at tail modulo the ring's size.
//
// Memory ordering: the producer writes a record with plain stores, then
// publishes it by storing tail; the consumer loads tail before reading the
// records below it. The consumer reads a record, then frees its space by
// storing head; the producer loads head before writing over that space.
// Go's atomics are sequentially consistent, which is more than the
// release/acquire pairs this needs.
type ring struct {
	tail *atomic.Uint64 // written by the producer only
	head *atomic.Uint64 // written by the consumer only
	data []byte         // len is a power of two
}

// A record is a 16-byte header, the upper layer's header, then the
// payload, padded to 16 bytes so that the next header is aligned and a
// record never wraps: a pad record fills the end of the ring instead.
//
//	0 length u32 (whole record) | 4 header length u16 | 6 kind u16 |
//	8 payload length u32 | 12 unused u32
const (
	recHeader = 16
	recAlign  = 16
	kindFrag  = 1
	kindPad   = 2
	maxHeader = btl.MaxHeaderSize
)

func recordSize(hdr, payload int) int { return alignUp(recHeader+hdr+payload, recAlign) }

// producer is the sending side's state of a ring.
type producer struct {
	ring
	tail      uint64 // this side's copy of tail
	headCache uint64 // head as last seen: reloaded only when the ring looks full
}

// put writes one record, or returns false when the ring has no room now.
func (p *producer) put(hdr, payload []byte) bool {
	size := uint64(len(p.data))
	need := uint64(recordSize(len(hdr), len(payload)))
	pos := p.tail & (size - 1)
	pad := uint64(0)
	if size-pos < need {
		pad = size - pos
	}
	if p.tail+pad+need-p.headCache > size {
		p.headCache = p.ring.head.Load()
		if p.tail+pad+need-p.headCache > size {
			return false
		}
	}
	if pad > 0 {
		binary.LittleEndian.PutUint64(p.data[pos:], uint64(pad)|kindPad<<48)
		p.tail += pad
		pos = 0
	}
	rec := p.data[pos : pos+need]
	binary.LittleEndian.PutUint32(rec[0:], uint32(need))
	binary.LittleEndian.PutUint16(rec[4:], uint16(len(hdr)))
	binary.LittleEndian.PutUint16(rec[6:], kindFrag)
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(payload)))
	n := copy(rec[recHeader:], hdr)
	copy(rec[recHeader+n:], payload)
	p.tail += need
	p.ring.tail.Store(p.tail)
	return true
}

// consumer is the receiving side's state of a ring.
type consumer struct {
	ring
	head   uint64 // this side's copy of head
	from   int    // world rank of the producer
	broken bool   // a malformed record was found: the ring is not read again
}

// pending reports whether records wait to be read.
func (c *consumer) pending() bool { return c.ring.tail.Load() != c.head }

// drain delivers every record published so far to recv, freeing each
// one's space once Deliver returns. A malformed record stops it with an
// error: the ring can no longer be trusted.
func (c *consumer) drain(recv btl.Receiver) (int, error) {
	tail := c.ring.tail.Load()
	size := uint64(len(c.data))
	n := 0
	for c.head != tail {
		pos := c.head & (size - 1)
		if size-pos < recHeader {
			return n, fmt.Errorf("record at offset %d crosses the end of the ring", pos)
		}
		rec := c.data[pos:]
		length := uint64(binary.LittleEndian.Uint32(rec[0:]))
		kind := binary.LittleEndian.Uint16(rec[6:])
		if length < recHeader || length%recAlign != 0 || length > size-pos || length > tail-c.head {
			return n, fmt.Errorf("record of %d bytes at offset %d does not fit the ring", length, pos)
		}
		if kind == kindFrag {
			h := int(binary.LittleEndian.Uint16(rec[4:]))
			pl := int(binary.LittleEndian.Uint32(rec[8:]))
			if recordSize(h, pl) != int(length) || h == 0 {
				return n, fmt.Errorf("record at offset %d: header %d and payload %d bytes in a record of %d",
					pos, h, pl, length)
			}
			body := rec[recHeader : recHeader+h+pl : recHeader+h+pl]
			recv.Deliver(c.from, body[:h:h], body[h:], false)
			n++
		} else if kind != kindPad {
			return n, fmt.Errorf("record at offset %d of unknown kind %d", pos, kind)
		}
		c.head += length
		c.ring.head.Store(c.head)
	}
	return n, nil
}
