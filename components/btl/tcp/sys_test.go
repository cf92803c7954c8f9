package tcp

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestCapIovecs(t *testing.T) {
	iovecs := func(lens ...uint64) []unix.Iovec {
		v := make([]unix.Iovec, len(lens))
		for i, n := range lens {
			v[i].Len = n
		}
		return v
	}
	for _, tc := range []struct {
		in    []uint64
		limit uint64
		want  []uint64
	}{
		{[]uint64{16, 40, 100}, 1000, []uint64{16, 40, 100}}, // under the limit: all of it
		{[]uint64{16, 40, 100}, 156, []uint64{16, 40, 100}},  // exactly the limit
		{[]uint64{16, 40, 100}, 60, []uint64{16, 40, 4}},     // the last one cut
		{[]uint64{16, 40, 100}, 56, []uint64{16, 40}},        // ends on a boundary
		{[]uint64{16, 40, 100}, 10, []uint64{10}},
		{[]uint64{5 << 20}, maxCall, []uint64{maxCall}},
	} {
		var dst [len(outbound{}.iov)]unix.Iovec
		n := capIovecs(&dst, iovecs(tc.in...), tc.limit)
		var got []uint64
		for _, v := range dst[:n] {
			got = append(got, v.Len)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v capped at %d: %v, want %v", tc.in, tc.limit, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v capped at %d: %v, want %v", tc.in, tc.limit, got, tc.want)
				break
			}
		}
	}
}
