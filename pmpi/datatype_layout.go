package pmpi

import (
	"fmt"
	"sync/atomic"
)

// layout is where a datatype's data lies in one element, relative to the
// buffer's origin (its first byte), and what that data is.
type layout struct {
	lb, extent     int // MPI's lower bound and extent: elements of a count lie extent apart
	trueLB, trueUB int // the first byte of data and the byte after the last
	// basic is the id of the one predefined type the type map holds, 0 if
	// it holds several (or none): reductions, GetElements and the
	// signature check read it.
	basic  uint8
	nbasic int   // basic elements in one element
	segs   []seg // the type map in order: runs of basic elements
	// blocks are the contiguous byte runs of one element, in type map
	// order, adjacent ones merged: what packing walks, and what a
	// vectored transport would hand to writev or process_vm_readv.
	blocks []block
	state  *typeState // nil for a predefined type: committed for ever
	bad    string     // why the type is invalid (TypeOf of a type that cannot be sent), or ""
	goType bool       // made by GoType: shared by every user of the Go type, never freed
}

// seg is n basic elements of predefined type basic, back to back from off.
type seg struct {
	off   int
	basic uint8
	n     int
}

// block is len bytes of data from off.
type block struct {
	off, len int
}

// typeState is a derived type's life: built, committed, freed.
type typeState struct {
	committed atomic.Bool
	freed     atomic.Bool
}

// ub is the upper bound, lb + extent.
func (l *layout) ub() int { return l.lb + l.extent }

// placed is n consecutive elements of t, the first at byte disp: one
// entry of a constructor's type map.
type placed struct {
	disp int
	t    *typeDesc
	n    int
}

// buildType makes a derived type of the given entries, in order.
func buildType(name string, entries []placed) (Datatype, error) {
	d := &typeDesc{derived: true, name: name, layout: layout{state: &typeState{}}}
	var lb, ub, tlb, tub int
	bounded, data, mixed := false, false, false
	for _, e := range entries {
		if e.n == 0 {
			continue
		}
		t := e.t
		// The bounds move linearly with the copy, so the first and last
		// copies hold the extremes.
		last := e.disp + (e.n-1)*t.extent
		if e.disp > maxDisp || e.disp < -maxDisp || last > maxDisp || last < -maxDisp ||
			e.n > maxDisp/max(1, t.size, abs(t.extent)) {
			return Datatype{}, errorf(ClassArg, nil, "type %s: %d elements of %s at byte %d reach beyond the %d bytes a type may span",
				name, e.n, t.name, e.disp, maxDisp)
		}
		for _, at := range [2]int{e.disp, last} {
			if !bounded || at+t.lb < lb {
				lb = at + t.lb
			}
			if !bounded || at+t.ub() > ub {
				ub = at + t.ub()
			}
			bounded = true
			if t.size > 0 {
				if !data || at+t.trueLB < tlb {
					tlb = at + t.trueLB
				}
				if !data || at+t.trueUB > tub {
					tub = at + t.trueUB
				}
				data = true
			}
		}
		if len(t.segs) == 1 && t.segs[0].off == t.lb && t.size == t.extent {
			// Back-to-back copies of one run are one longer run.
			s := t.segs[0]
			d.addSeg(seg{e.disp + s.off, s.basic, e.n * s.n})
		} else {
			for k := range e.n {
				at := e.disp + k*t.extent
				for _, s := range t.segs {
					d.addSeg(seg{at + s.off, s.basic, s.n})
				}
			}
		}
		d.size += e.n * t.size
		d.nbasic += e.n * t.nbasic
		switch {
		case t.size == 0:
		case t.basic == 0 || (d.basic != 0 && d.basic != t.basic):
			mixed = true
		default:
			d.basic = t.basic
		}
	}
	d.lb, d.extent, d.trueLB, d.trueUB = lb, ub-lb, tlb, tub
	if mixed {
		d.basic = 0
	}
	d.finish()
	return Datatype{d}, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// addSeg appends s to the type map, merged with the last run when it
// continues it.
func (d *typeDesc) addSeg(s seg) {
	if s.n == 0 {
		return
	}
	if n := len(d.segs); n > 0 {
		last := &d.segs[n-1]
		if last.basic == s.basic && last.off+last.n*predefined[last.basic].size == s.off {
			last.n += s.n
			return
		}
	}
	d.segs = append(d.segs, s)
}

// finish computes what follows from the type map: the byte blocks, the
// kind, whether the type is contiguous.
func (d *typeDesc) finish() {
	d.blocks = d.blocks[:0]
	for _, s := range d.segs {
		b := block{s.off, s.n * predefined[s.basic].size}
		if n := len(d.blocks); n > 0 && d.blocks[n-1].off+d.blocks[n-1].len == b.off {
			d.blocks[n-1].len += b.len
			continue
		}
		d.blocks = append(d.blocks, b)
	}
	if d.basic != 0 {
		d.kind = predefined[d.basic].kind
	}
	contiguous := d.size == 0 ||
		len(d.blocks) == 1 && d.blocks[0].off == 0 && d.lb == 0 && d.extent == d.size
	d.packs = !contiguous
}

// maxDisp bounds a displacement, in bytes, so that sums of them cannot
// overflow.
const maxDisp = 1 << 50

// wholeCount is how many elements n bytes hold, Undefined unless whole.
func (d *typeDesc) wholeCount(n int) int {
	if d.size == 0 {
		if n == 0 {
			return 0
		}
		return Undefined
	}
	if n%d.size != 0 {
		return Undefined
	}
	return n / d.size
}

// elements is how many basic elements n bytes of packed data hold,
// Undefined if n ends inside one: MPI_Get_elements.
func (d *typeDesc) elements(n int) int {
	if n == 0 {
		return 0
	}
	if d.size == 0 {
		return Undefined
	}
	if d.basic != 0 {
		if bs := predefined[d.basic].size; n%bs == 0 {
			return n / bs
		}
		return Undefined
	}
	count := n / d.size * d.nbasic
	rest := n % d.size
	for _, s := range d.segs {
		if rest == 0 {
			break
		}
		bs := predefined[s.basic].size
		k := min(s.n, rest/bs)
		count, rest = count+k, rest-k*bs
		if k < s.n {
			break
		}
	}
	if rest != 0 {
		return Undefined
	}
	return count
}

// describe is what an error says of a derived type: its name and layout.
func (d *typeDesc) describe() string {
	return fmt.Sprintf("%s (%d bytes of data, extent %d)", d.name, d.size, d.extent)
}
