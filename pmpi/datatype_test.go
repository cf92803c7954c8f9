package pmpi

import (
	"testing"
	"time"
)

type celsius float32

type level uint8

// TestTypeOf checks every element type, by Go's own name and under a
// name of its own: the fast type switch and reflection must agree.
func TestTypeOf(t *testing.T) {
	for _, c := range []struct {
		name string
		got  Datatype
		want Datatype
	}{
		{"uint8", TypeOf[uint8](), Byte},
		{"level", TypeOf[level](), Byte},
		{"int8", TypeOf[int8](), Int8},
		{"int16", TypeOf[int16](), Int16},
		{"int32", TypeOf[int32](), Int32},
		{"int64", TypeOf[int64](), Int64},
		{"int", TypeOf[int](), Int64},
		{"time.Duration", TypeOf[time.Duration](), Int64},
		{"uint16", TypeOf[uint16](), Uint16},
		{"uint32", TypeOf[uint32](), Uint32},
		{"uint64", TypeOf[uint64](), Uint64},
		{"uint", TypeOf[uint](), Uint64},
		{"float32", TypeOf[float32](), Float32},
		{"celsius", TypeOf[celsius](), Float32},
		{"float64", TypeOf[float64](), Float64},
		{"complex64", TypeOf[complex64](), Complex64},
		{"complex128", TypeOf[complex128](), Complex128},
		{"Pair[int16]", TypeOf[Pair[int16]](), Int16Int},
		{"Pair[int32]", TypeOf[Pair[int32]](), Int32Int},
		{"Pair[int64]", TypeOf[Pair[int64]](), Int64Int},
		{"Pair[float32]", TypeOf[Pair[float32]](), Float32Int},
		{"Pair[float64]", TypeOf[Pair[float64]](), Float64Int},
	} {
		if c.got != c.want {
			t.Errorf("TypeOf[%s]() = %s, want %s", c.name, c.got.Name(), c.want.Name())
		}
	}
}

func TestTypeOfDoesNotAllocate(t *testing.T) {
	var d Datatype
	if n := testing.AllocsPerRun(100, func() { d = TypeOf[Pair[float64]]() }); n != 0 {
		t.Errorf("TypeOf allocates %.0f times a call", n)
	}
	_ = d
}
