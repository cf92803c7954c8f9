package pmpi

// Fortran's predefined types that no Go type describes, for the C
// library's MPI_LOGICAL and its sized kinds, and the pairs whose index
// has the value's type (MPI_2REAL, MPI_2DOUBLE_PRECISION, and
// MPI_2INTEGER when INTEGER has 8 bytes; of 4 bytes it is Int32Int).
//
// A logical is false when zero and true otherwise, as every Fortran
// compiler stores them (gfortran's .TRUE. is 1, Intel's -1). MPI_LAND,
// MPI_LOR and MPI_LXOR return one of their operands, or zero, so a
// result holds the program's own .TRUE.; no other operation is defined.
var (
	Logical1       = Datatype{&predefined[idLogical1]}
	Logical2       = Datatype{&predefined[idLogical2]}
	Logical4       = Datatype{&predefined[idLogical4]}
	Logical8       = Datatype{&predefined[idLogical8]}
	Int64Int64     = Datatype{&predefined[idInt64Int64]}
	Float32Float32 = Datatype{&predefined[idFloat32Float32]}
	Float64Float64 = Datatype{&predefined[idFloat64Float64]}
)

// twinDesc describes pair type id of MinLoc and MaxLoc whose value and
// index are both the basic type value, of size bytes: two of them back
// to back, as a contiguous type of two would be.
func twinDesc(id uint8, name string, value uint8, size int) typeDesc {
	d := typeDesc{size: 2 * size, kind: kindPair, id: id, name: name, layout: layout{
		extent: 2 * size, trueUB: 2 * size, basic: value, redux: id, nbasic: 2,
		segs: []run{{off: 0, len: 2 * size, n: 1, basic: value}},
	}}
	d.finishBlocks()
	return d
}

// logicalOp is MPI_LAND, MPI_LOR or MPI_LXOR on logicals of T's size.
func logicalOp[T int8 | int16 | int32 | int64](c opCode) func(in, inout []byte) {
	switch c {
	case opLand:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				if a[i] == 0 {
					b[i] = 0
				}
			}
		}
	case opLor:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				if a[i] != 0 {
					b[i] = a[i]
				}
			}
		}
	case opLxor:
		return func(in, inout []byte) {
			a, b := operands[T](in, inout)
			for i := range b {
				switch {
				case a[i] != 0 && b[i] != 0:
					b[i] = 0
				case a[i] != 0:
					b[i] = a[i]
				}
			}
		}
	}
	return nil
}

// twinOp is MinLoc or MaxLoc on pairs of two T: the smaller (larger)
// value wins; on a tie the smaller index.
func twinOp[T int64 | float32 | float64](c opCode) func(in, inout []byte) {
	better := locBetter[T](c)
	if better == nil {
		return nil
	}
	return func(in, inout []byte) {
		a, b := operands[[2]T](in, inout)
		for i := range b {
			switch {
			case better(a[i][0], b[i][0]):
				b[i] = a[i]
			case a[i][0] == b[i][0]:
				b[i][1] = min(a[i][1], b[i][1])
			}
		}
	}
}
