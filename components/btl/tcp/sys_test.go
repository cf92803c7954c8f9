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
		{make([]uint64, iovMax+5), 100, make([]uint64, iovMax)}, // at most iovMax iovecs
	} {
		iov := iovecs(tc.in...)
		n, full := capIovecs(iov, tc.limit)
		var got []uint64
		for _, v := range iov[:n] {
			got = append(got, v.Len)
		}
		if cut := got[len(got)-1] != tc.in[n-1]; cut != (full != 0) || cut && full != tc.in[n-1] {
			t.Errorf("%v capped at %d: full length %d to restore, want that of the cut iovec if one was", tc.in, tc.limit, full)
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
