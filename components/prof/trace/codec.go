package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// The events travel to gompirun in a compact binary form: varints, each
// timestamp as the difference from the one before, and each distinct
// string once (later uses name it by number). It is a few times smaller
// and faster than encoding/gob for the same events.

const codecMagic = "gompi-trace/2"

// encoder appends a rank's trace.
type encoder struct {
	b       []byte
	strings map[string]uint64
}

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }

// str writes a string's number; a string seen for the first time follows
// its number, which is then the next one.
func (e *encoder) str(s string) {
	if n, ok := e.strings[s]; ok {
		e.uint(n)
		return
	}
	n := uint64(len(e.strings))
	e.strings[s] = n
	e.uint(n)
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func encodeRank(rt rankTrace) []byte {
	e := encoder{b: make([]byte, 0, 32*len(rt.Events)+64), strings: map[string]uint64{}}
	e.b = append(e.b, codecMagic...)
	e.int(int64(rt.Rank))
	e.int(int64(rt.Size))
	e.str(rt.Output)
	e.int(rt.Offset)
	e.int(rt.Measured)
	e.int(rt.RTT)
	e.uint(uint64(len(rt.Threads)))
	for _, tid := range slices.Sorted(maps.Keys(rt.Threads)) {
		e.int(int64(tid))
		e.uint(rt.Threads[tid])
	}
	if rt.Truncated {
		e.uint(1)
	} else {
		e.uint(0)
	}
	e.uint(uint64(len(rt.Events)))
	var last int64
	for _, ev := range rt.Events {
		e.str(ev.Name)
		e.uint(uint64(ev.Kind))
		e.int(ev.Ts - last)
		last = ev.Ts
		e.int(ev.Dur)
		e.int(int64(ev.Tid))
		a := ev.Args
		e.uint(uint64(a.Set))
		e.str(a.Comm)
		e.str(a.CommID)
		for _, v := range a.ints() {
			e.int(int64(*v))
		}
		e.str(a.Err)
		e.str(a.Label)
		e.uint(uint64(len(ev.Flows)))
		for _, f := range ev.Flows {
			v := f.ID << 1
			if f.In {
				v |= 1
			}
			e.uint(v)
		}
	}
	return e.b
}

// ints lists the numeric arguments, in the order they travel.
func (a *wireArgs) ints() [9]*int {
	return [9]*int{&a.Peer, &a.Tag, &a.Root, &a.Bytes, &a.Index, &a.Count, &a.Dest, &a.SendTag, &a.SendBytes}
}

// decoder reads what encoder wrote; its first error sticks.
type decoder struct {
	b       []byte
	strings []string
	err     error
}

var errShort = errors.New("truncated")

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	switch {
	case d.err != nil:
		return ""
	case n < uint64(len(d.strings)):
		return d.strings[n]
	case n > uint64(len(d.strings)):
		d.fail(fmt.Errorf("string %d before string %d", n, len(d.strings)))
		return ""
	}
	l := d.uint()
	if d.err == nil && l > uint64(len(d.b)) {
		d.fail(errShort)
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[:l])
	d.b = d.b[l:]
	d.strings = append(d.strings, s)
	return s
}

// count reads a length, refusing one longer than the bytes left could hold.
func (d *decoder) count() int {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail(fmt.Errorf("%d items in %d bytes", n, len(d.b)))
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
		d.b = nil
	}
}

func decodeRank(b []byte) (rankTrace, error) {
	if len(b) < len(codecMagic) || string(b[:len(codecMagic)]) != codecMagic {
		return rankTrace{}, errors.New("not a gompi trace")
	}
	d := decoder{b: b[len(codecMagic):]}
	rt := rankTrace{Rank: int(d.int()), Size: int(d.int())}
	rt.Output = d.str()
	rt.Offset, rt.Measured, rt.RTT = d.int(), d.int(), d.int()
	nt := d.count()
	rt.Threads = make(map[int32]uint64, nt)
	for range nt {
		tid := int32(d.int())
		rt.Threads[tid] = d.uint()
	}
	rt.Truncated = d.uint() == 1
	n := d.count()
	rt.Events = make([]wireEvent, n)
	var last int64
	for i := range rt.Events {
		ev := &rt.Events[i]
		ev.Name = d.str()
		ev.Kind = kind(d.uint())
		last += d.int()
		ev.Ts = last
		ev.Dur = d.int()
		ev.Tid = int32(d.int())
		a := &ev.Args
		a.Set = uint8(d.uint())
		a.Comm, a.CommID = d.str(), d.str()
		for _, v := range a.ints() {
			*v = int(d.int())
		}
		a.Err, a.Label = d.str(), d.str()
		if nf := d.count(); nf > 0 {
			ev.Flows = make([]wireFlow, nf)
			for j := range ev.Flows {
				v := d.uint()
				ev.Flows[j] = wireFlow{ID: v >> 1, In: v&1 == 1}
			}
		}
		if d.err != nil {
			return rankTrace{}, fmt.Errorf("event %d of %d: %w", i, n, d.err)
		}
	}
	if d.err != nil {
		return rankTrace{}, d.err
	}
	if len(d.b) != 0 {
		return rankTrace{}, fmt.Errorf("%d bytes after the events", len(d.b))
	}
	return rt, nil
}
