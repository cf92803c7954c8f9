package params

import (
	"fmt"
	"math"
	"strconv"
)

// Range bounds the values of a KindInt, KindSize or KindFloat parameter
// (Def.Range, Spec.Range). It is the one statement of the bound: it refuses
// a value outside it ("must be 1 to 1024") and is what gompi_info and the
// documentation show as the accepted values, unless Accepts says more.
type Range struct {
	kind     Kind
	lo, hi   int64   // KindInt, KindSize
	flo, fhi float64 // KindFloat
	openLo   bool    // KindFloat: flo itself is refused
	pow2     bool    // KindInt, KindSize: powers of two only
	unit     string  // KindInt, KindFloat: what the numbers count
}

// IntIn is a Range of a KindInt parameter: lo to hi.
func IntIn(lo, hi int) *Range { return &Range{kind: KindInt, lo: int64(lo), hi: int64(hi)} }

// IntFrom is a Range of a KindInt parameter: lo or more.
func IntFrom(lo int) *Range { return IntIn(lo, math.MaxInt) }

// SizeIn is a Range of a KindSize parameter: lo to hi bytes.
func SizeIn(lo, hi int64) *Range { return &Range{kind: KindSize, lo: lo, hi: hi} }

// FloatIn is a Range of a KindFloat parameter: lo to hi, both included.
func FloatIn(lo, hi float64) *Range { return &Range{kind: KindFloat, flo: lo, fhi: hi} }

// FloatAbove is a Range of a KindFloat parameter: more than lo, at most hi.
func FloatAbove(lo, hi float64) *Range {
	return &Range{kind: KindFloat, flo: lo, fhi: hi, openLo: true}
}

// PowersOfTwo narrows an integer or size Range to its powers of two.
func (r *Range) PowersOfTwo() *Range {
	c := *r
	c.pow2 = true
	return &c
}

// Unit names what the numbers of an integer or float Range count
// ("seconds"); a size's are bytes.
func (r *Range) Unit(u string) *Range {
	c := *r
	c.unit = u
	return &c
}

// String is the accepted values: "1 to 1024", "0 or more", "64 to 16m bytes",
// "a power of two from 16k to 64m bytes", "more than 0 and at most 3600".
func (r *Range) String() string {
	switch r.kind {
	case KindInt, KindSize:
		num := func(n int64) string { return strconv.FormatInt(n, 10) }
		unit, top := "", int64(math.MaxInt)
		if r.unit != "" {
			unit = " " + r.unit
		}
		if r.kind == KindSize {
			num, unit, top = sizeText, " bytes", math.MaxInt64
		}
		switch {
		case r.pow2:
			return "a power of two from " + num(r.lo) + " to " + num(r.hi) + unit
		case r.hi >= top:
			return num(r.lo) + " or more" + unit
		}
		return num(r.lo) + " to " + num(r.hi) + unit
	case KindFloat:
		num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
		unit := ""
		if r.unit != "" {
			unit = " " + r.unit
		}
		if r.openLo {
			return "more than " + num(r.flo) + " and at most " + num(r.fhi) + unit
		}
		return num(r.flo) + " to " + num(r.fhi) + unit
	}
	return "a range of kind " + r.kind.String()
}

// sizeText writes n with the largest k, m or g suffix that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		s     string
		shift uint
	}{{"g", 30}, {"m", 20}, {"k", 10}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// check refuses a parsed value outside r.
func (r *Range) check(v any) error {
	ok := true
	switch n := v.(type) {
	case int:
		ok = int64(n) >= r.lo && int64(n) <= r.hi && (!r.pow2 || n > 0 && n&(n-1) == 0)
	case int64:
		ok = n >= r.lo && n <= r.hi && (!r.pow2 || n > 0 && n&(n-1) == 0)
	case float64:
		ok = n <= r.fhi && (n > r.flo || !r.openLo && n == r.flo)
	}
	if !ok {
		return fmt.Errorf("must be %s", r)
	}
	return nil
}
