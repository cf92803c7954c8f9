package pmpi

import (
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/frameworks/coll"
)

// Op is a reduction operation: one of the predefined ones or one made by
// OpCreate. The zero Op is invalid.
type Op struct{ def *opDef }

type opDef struct {
	name    string
	code    opCode // 0 for user-defined operations
	commute bool
	user    UserFunc
	only    *Datatype // a user operation made for one datatype
	record  int       // elements of only in the unit user combines; 0 for one
}

type opCode uint8

const (
	opSum opCode = iota + 1
	opProd
	opMin
	opMax
	opLand
	opLor
	opLxor
	opBand
	opBor
	opBxor
	opMinLoc
	opMaxLoc
)

// The predefined operations.
var (
	OpSum    = Op{&opDef{name: "MPI_SUM", code: opSum, commute: true}}
	OpProd   = Op{&opDef{name: "MPI_PROD", code: opProd, commute: true}}
	OpMin    = Op{&opDef{name: "MPI_MIN", code: opMin, commute: true}}
	OpMax    = Op{&opDef{name: "MPI_MAX", code: opMax, commute: true}}
	OpLand   = Op{&opDef{name: "MPI_LAND", code: opLand, commute: true}}
	OpLor    = Op{&opDef{name: "MPI_LOR", code: opLor, commute: true}}
	OpLxor   = Op{&opDef{name: "MPI_LXOR", code: opLxor, commute: true}}
	OpBand   = Op{&opDef{name: "MPI_BAND", code: opBand, commute: true}}
	OpBor    = Op{&opDef{name: "MPI_BOR", code: opBor, commute: true}}
	OpBxor   = Op{&opDef{name: "MPI_BXOR", code: opBxor, commute: true}}
	OpMinLoc = Op{&opDef{name: "MPI_MINLOC", code: opMinLoc, commute: true}}
	OpMaxLoc = Op{&opDef{name: "MPI_MAXLOC", code: opMaxLoc, commute: true}}
)

// UserFunc is a user-defined reduction, MPI_User_function's Go form: it
// sets inout[i] = in[i] ⊕ inout[i] for count elements of dt, where in
// holds the operand of the lower ranks. count is a whole number of the
// operation's records (Op.For).
type UserFunc func(in, inout []byte, count int, dt Datatype)

// OpCreate makes an operation from f. A non-commutative one is applied in
// rank order.
func (*realAPI) OpCreate(f UserFunc, commutative bool) (Op, error) {
	if f == nil {
		return Op{}, errorf(ClassOp, nil, "op create: the function is nil")
	}
	return Op{&opDef{name: "user-defined", commute: commutative, user: f}}, nil
}

// Calling returns the user operation o with f for its function: the C
// library's, which passes a C function the type handle the program gave
// where several C types share one of gompi's. It is no call of the API,
// so no tool sees an operation made.
func (o Op) Calling(f UserFunc) Op {
	d := *o.def
	d.user = f
	return Op{&d}
}

// For returns o restricted to records of record elements of dt (1: single
// elements): using it on another datatype fails with ErrOp instead of
// calling o's function with elements it cannot read, and every algorithm
// hands the function whole records, so that a vector is never cut inside
// one; a count that is not a whole number of records fails with ErrCount.
// Package mpi's NewOp uses it. A record of fewer than one element is an
// error, and so is a predefined operation, which takes single elements.
func (o Op) For(dt Datatype, record int) (Op, error) {
	switch {
	case o.def == nil:
		return o, errorf(ClassOp, nil, "op for %s: the operation is invalid (MPI_OP_NULL)", dt.Name())
	case record < 1:
		return Op{}, errorf(ClassArg, nil, "op for %s: a record of %d elements (want 1 or more)", dt.Name(), record)
	case o.def.user == nil && record != 1:
		return Op{}, errorf(ClassOp, nil, "op for %s: %s combines single elements, not records of %d", dt.Name(), o.def.name, record)
	case o.def.user == nil:
		return o, nil
	}
	d := *o.def
	d.only, d.record = &dt, record
	return Op{&d}, nil
}

// Record is the number of elements in the unit that o combines: 1 unless
// For made o for records of several.
func (o Op) Record() int {
	if o.def == nil || o.def.record == 0 {
		return 1
	}
	return o.def.record
}

// Name is the operation's MPI name, or "user-defined".
func (o Op) Name() string {
	if o.def == nil {
		return "MPI_OP_NULL"
	}
	return o.def.name
}

// Commutative reports whether the operands may be combined in any order.
func (o Op) Commutative() bool { return o.def != nil && o.def.commute }

// bound is an operation applied to one datatype: what coll components see.
// Its unit is a record of record elements of dt, the size at whose
// multiples every algorithm cuts a vector.
type bound struct {
	dt      Datatype
	record  int
	commute bool
	exact   bool // the result does not depend on the grouping (coll.Exact)
	fn      func(in, inout []byte)
}

func (b *bound) Reduce(in, inout []byte) { b.fn(in, inout) }
func (b *bound) Commutative() bool       { return b.commute }
func (b *bound) Exact() bool             { return b.exact }
func (b *bound) ElemSize() int           { return b.record * b.dt.Size() }

// bind checks that MPI defines o on dt and returns the two joined, or why
// not. A predefined pair is looked up, not built: a small reduction
// allocates nothing here, and the caller formats an error only on failure.
func bind(o Op, dt Datatype) (coll.Op, string) {
	if o.def == nil {
		return nil, "the operation is invalid (MPI_OP_NULL)"
	}
	if f := o.def.user; f != nil {
		if o.def.only != nil && *o.def.only != dt {
			return nil, fmt.Sprintf("the operation was made for %s, not %s", o.def.only.Name(), dt.Name())
		}
		if dt.t != nil && dt.t.packs {
			return userOnPacked(f, dt, o)
		}
		return &bound{dt, o.Record(), o.def.commute, false, func(in, inout []byte) { f(in, inout, len(in)/dt.Size(), dt) }}, ""
	}
	b := builtins[o.def.code][builtinID(dt)]
	if b == nil {
		if dt.t != nil && dt.t.derived && dt.t.redux == 0 {
			return nil, fmt.Sprintf("%s is not defined on %s, whose elements mix basic types (a predefined operation applies element-wise to a type of one basic type; use a user operation)", o.def.name, dt.Name())
		}
		return nil, fmt.Sprintf("%s is not defined on %s (%s)", o.def.name, dt.Name(), allowedTypes(o.def.code))
	}
	return b, ""
}

// builtins are the predefined operations on the types MPI defines them
// for, by operation code and datatype id (nil where undefined); built
// once, read only. An array, not a map: hashing the key cost 3% of a
// small Allreduce.
var builtins = func() (t [opMaxLoc + 1][len(predefined)]*bound) {
	for c := opSum; c <= opMaxLoc; c++ {
		for id := 1; id < len(predefined); id++ {
			dt := Datatype{&predefined[id]}
			if fn := builtin(c, dt); fn != nil {
				k := dt.kind()
				inexact := (c == opSum || c == opProd) && (k == kindFloat || k == kindComplex)
				t[c][id] = &bound{dt, 1, true, !inexact, fn}
			}
		}
	}
	return t
}()

func allowedTypes(c opCode) string {
	switch c {
	case opSum, opProd:
		return "it takes integer, floating-point and complex types"
	case opMin, opMax:
		return "it takes integer and floating-point types"
	case opLand, opLor, opLxor:
		return "it takes integer types and Fortran's logicals"
	case opBand, opBor, opBxor:
		return "it takes integer types"
	default:
		return "it takes value-index pairs such as mpi.Pair[float64]"
	}
}

// builtin returns the function of a predefined operation on dt, or nil
// where MPI does not define it.
func builtin(c opCode, dt Datatype) func(in, inout []byte) {
	scalar := scalarOp(c, dt)
	if f := vectorOp(c, dt, scalar); f != nil {
		return f
	}
	return scalar
}

// scalarOp is builtin's Go loop, one element at a time.
func scalarOp(c opCode, dt Datatype) func(in, inout []byte) {
	switch dt {
	case Byte:
		return intOp[uint8](c)
	case Int8:
		return intOp[int8](c)
	case Int16:
		return intOp[int16](c)
	case Int32:
		return intOp[int32](c)
	case Int64:
		return intOp[int64](c)
	case Uint16:
		return intOp[uint16](c)
	case Uint32:
		return intOp[uint32](c)
	case Uint64:
		return intOp[uint64](c)
	case Float32:
		return floatOp[float32](c)
	case Float64:
		return floatOp[float64](c)
	case Complex64:
		return complexOp[complex64](c)
	case Complex128:
		return complexOp[complex128](c)
	case Float32Int:
		return pairOp[float32](c)
	case Float64Int:
		return pairOp[float64](c)
	case Int64Int:
		return pairOp[int64](c)
	case Int32Int:
		return pairOp[int32](c)
	case Int16Int:
		return pairOp[int16](c)
	case CLongDouble:
		return wideOp(c, x87s)
	case CLongDoubleComplex:
		return wideComplexOp(c, x87s)
	case CLongDoubleInt:
		return longDoubleIntOp(c)
	case Logical1:
		return logicalOp[int8](c)
	case Logical2:
		return logicalOp[int16](c)
	case Logical4:
		return logicalOp[int32](c)
	case Logical8:
		return logicalOp[int64](c)
	case Int64Int64:
		return twinOp[int64](c)
	case Float32Float32:
		return twinOp[float32](c)
	case Float64Float64:
		return twinOp[float64](c)
	case Logical16:
		return logicalOp[word128](c)
	case Int128:
		return int128Op(c)
	case Float16:
		return halfOp(c)
	case Complex32:
		return complex32Op(c)
	case Float128:
		return wideOp(c, f128s)
	case Complex256:
		return wideComplexOp(c, f128s)
	}
	return nil
}

// operands views in and inout as elements, in cut to inout's length, so
// that the loops index both without bounds checks.
func operands[T any](in, inout []byte) (a, b []T) {
	b = view[T](inout)
	return view[T](in)[:len(b)], b
}

// view is b as elements of T; b holds whole elements.
func view[T any](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type ordered interface {
	integer | ~float32 | ~float64
}

func arith[T ordered | ~complex64 | ~complex128](c opCode) func(in, inout []byte) {
	switch c {
	case opSum:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				b[i] = a[i] + b[i]
			}
		}
	case opProd:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				b[i] = a[i] * b[i]
			}
		}
	}
	return nil
}

func order[T ordered](c opCode) func(in, inout []byte) {
	switch c {
	case opMin:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				b[i] = min(a[i], b[i])
			}
		}
	case opMax:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				b[i] = max(a[i], b[i])
			}
		}
	}
	return nil
}

func intOp[T integer](c opCode) func(in, inout []byte) {
	if f := arith[T](c); f != nil {
		return f
	}
	if f := order[T](c); f != nil {
		return f
	}
	truth := func(v T) bool { return v != 0 }
	logical := func(f func(x, y bool) bool) func(in, inout []byte) {
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				r := f(truth(a[i]), truth(b[i]))
				b[i] = 0
				if r {
					b[i] = 1
				}
			}
		}
	}
	bitwise := func(f func(x, y T) T) func(in, inout []byte) {
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				b[i] = f(a[i], b[i])
			}
		}
	}
	switch c {
	case opLand:
		return logical(func(x, y bool) bool { return x && y })
	case opLor:
		return logical(func(x, y bool) bool { return x || y })
	case opLxor:
		return logical(func(x, y bool) bool { return x != y })
	case opBand:
		return bitwise(func(x, y T) T { return x & y })
	case opBor:
		return bitwise(func(x, y T) T { return x | y })
	case opBxor:
		return bitwise(func(x, y T) T { return x ^ y })
	}
	return nil
}

func floatOp[T ~float32 | ~float64](c opCode) func(in, inout []byte) {
	if f := arith[T](c); f != nil {
		return f
	}
	return order[T](c)
}

func complexOp[T ~complex64 | ~complex128](c opCode) func(in, inout []byte) {
	return arith[T](c)
}

// locBetter is how MinLoc (MaxLoc) compares two values: whether x is
// smaller (larger) than y; nil for any other operation.
func locBetter[T ordered](c opCode) func(x, y T) bool {
	switch c {
	case opMinLoc:
		return func(x, y T) bool { return x < y }
	case opMaxLoc:
		return func(x, y T) bool { return x > y }
	}
	return nil
}

// pairOp is MinLoc or MaxLoc: the smaller (larger) value wins; on a tie the
// smaller index, as MPI defines it.
func pairOp[T int16 | int32 | int64 | float32 | float64](c opCode) func(in, inout []byte) {
	better := locBetter[T](c)
	if better == nil {
		return nil
	}
	// The records are packed: the value, then the index, with no padding
	// (the algorithms combine packed data), so a value may be unaligned,
	// which the loads below allow.
	size := int(unsafe.Sizeof(T(0)))
	rec := size + 4
	return func(in, inout []byte) {
		n := min(len(in), len(inout)) / rec
		if n == 0 {
			return
		}
		_, _ = in[n*rec-1], inout[n*rec-1]
		for i := 0; i < n*rec; i += rec {
			a, b := unsafe.Pointer(&in[i]), unsafe.Pointer(&inout[i])
			av, bv := *(*T)(a), *(*T)(b)
			switch {
			case better(av, bv):
				copy(inout[i:i+rec], in[i:i+rec])
			case av == bv:
				ai, bi := (*int32)(unsafe.Add(a, size)), (*int32)(unsafe.Add(b, size))
				*bi = min(*ai, *bi)
			}
		}
	}
}

func (o Op) String() string { return fmt.Sprintf("op %s", o.Name()) }
