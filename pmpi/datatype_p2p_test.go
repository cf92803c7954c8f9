package pmpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// benchSelf sends count elements of dt to itself and receives them:
// what a derived type adds to a small message, beside BenchmarkSelfFloat64.
func benchSelf(b *testing.B, count int, dt pmpi.Datatype, buf []byte) {
	api, w := benchWorld(b)
	if err := pmpi.Real().TypeCommit(dt); err != nil {
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
	col, _ := pmpi.Real().TypeVector(1, 1, 8, pmpi.Float64)
	benchSelf(b, 1, col, make([]byte, 64))
}

// A column of 8 values, packed.
func BenchmarkSelfColumnOf8(b *testing.B) {
	col, _ := pmpi.Real().TypeVector(8, 1, 8, pmpi.Float64)
	benchSelf(b, 1, col, make([]byte, 8*64))
}

// A column of 128 values (1 KiB), packed.
func BenchmarkSelfColumnOf128(b *testing.B) {
	col, _ := pmpi.Real().TypeVector(128, 1, 8, pmpi.Float64)
	benchSelf(b, 1, col, make([]byte, 128*64))
}

// testDerivedDirect sends types whose data is one block away from the
// origin, which move from and into that block: it must land where
// unpacking would put it, and nowhere else.
func testDerivedDirect(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	row, _ := pmpi.Real().TypeSubarray([]int{4, 6}, []int{1, 3}, []int{2, 1}, pmpi.OrderC, pmpi.Int32) // ints 13, 14, 15
	two, _ := pmpi.Real().TypeHindexed([]int{2}, []int{8}, pmpi.Int32)
	pairs, _ := pmpi.Real().TypeResized(two, 0, 8) // count n: ints 2 to 2n+1
	for _, dt := range []pmpi.Datatype{row, pairs} {
		if err := pmpi.Real().TypeCommit(dt); err != nil {
			t.Fatal(err)
		}
	}
	ints := func(n int) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(100 + i)
		}
		return v
	}
	for _, c := range []struct {
		name  string
		dt    pmpi.Datatype
		count int
		want  []int // the ints received, in place
	}{
		{"a subarray's row", row, 1, []int{13, 14, 15}},
		{"a block's count", pairs, 3, []int{2, 3, 4, 5, 6, 7}},
	} {
		for _, nb := range []bool{false, true} {
			in := make([]int32, 24)
			out := ints(24)
			if nb {
				r, err := api.Irecv(pmpi.Bytes(in), c.count, c.dt, 0, 5, w)
				if err != nil {
					t.Fatal(err)
				}
				s, err := api.Isend(pmpi.Bytes(out), c.count, c.dt, 0, 5, w)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := api.Wait(s); err != nil {
					t.Fatal(err)
				}
				if _, err := api.Wait(r); err != nil {
					t.Fatal(err)
				}
			} else {
				r, err := api.Irecv(pmpi.Bytes(in), c.count, c.dt, 0, 5, w)
				if err != nil {
					t.Fatal(err)
				}
				if err := api.Send(pmpi.Bytes(out), c.count, c.dt, 0, 5, w); err != nil {
					t.Fatal(err)
				}
				if _, err := api.Wait(r); err != nil {
					t.Fatal(err)
				}
			}
			want := make([]int32, 24)
			for _, i := range c.want {
				want[i] = int32(100 + i)
			}
			if !slices.Equal(in, want) {
				t.Errorf("%s (non-blocking %v): received %v, want %v", c.name, nb, in, want)
			}
		}
	}
	// A longer message than the row fills the row, no more, and fails.
	in := make([]int32, 24)
	if err := api.Send(pmpi.Bytes(ints(4)), 4, pmpi.Int32, 0, 6, w); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Recv(pmpi.Bytes(in), 1, row, 0, 6, w); !errors.Is(err, pmpi.ErrTruncate) {
		t.Errorf("a longer message: %v, want ErrTruncate", err)
	}
	want := make([]int32, 24)
	want[13], want[14], want[15] = 100, 101, 102
	if !slices.Equal(in, want) {
		t.Errorf("a longer message: received %v, want %v", in, want)
	}
}
