package pmpi_test

import (
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// benchSelf sends count elements of dt to itself and receives them:
// what a derived type adds to a small message, beside BenchmarkSelfFloat64.
func benchSelf(b *testing.B, count int, dt pmpi.Datatype, buf []byte) {
	api, w := benchWorld(b)
	if err := dt.Commit(); err != nil {
		b.Fatal(err)
	}
	in := make([]byte, len(buf))
	b.ReportAllocs()
	for b.Loop() {
		r, err := api.Irecv(in, count, dt, 0, 3, w)
		if err != nil {
			b.Fatal(err)
		}
		if err := api.Send(buf, count, dt, 0, 3, w); err != nil {
			b.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfFloat64(b *testing.B) {
	benchSelf(b, 1, pmpi.Float64, make([]byte, 8))
}

// A column of one value: a contiguous derived type.
func BenchmarkSelfColumnOf1(b *testing.B) {
	col, _ := pmpi.TypeVector(1, 1, 8, pmpi.Float64)
	benchSelf(b, 1, col, make([]byte, 64))
}

// A column of 8 values, packed.
func BenchmarkSelfColumnOf8(b *testing.B) {
	col, _ := pmpi.TypeVector(8, 1, 8, pmpi.Float64)
	benchSelf(b, 1, col, make([]byte, 8*64))
}
