package pmpi_test

import (
	"bytes"
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// testCollectiveArgs: a collective's bad arguments are named as the
// program wrote them: InPlace where the call has no in-place form, an
// intercommunicator's root on an intracommunicator, a count list alone,
// buffers that overlap where the call has no in-place form to use instead.
func testCollectiveArgs(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	four := make([]byte, 4)
	for _, tc := range []struct {
		what  string
		err   error
		class pmpi.ErrorClass
		says  string
	}{
		{"Bcast of a short buffer", api.Bcast(four, 3, pmpi.Int32, 0, w), pmpi.ClassBuffer,
			"bcast on comm MPI_COMM_WORLD: the buffer of 4 bytes is too small for 3 elements of MPI_INT32_T"},
		{"Bcast of InPlace", api.Bcast(pmpi.InPlace, 1, pmpi.Int32, 0, w), pmpi.ClassBuffer,
			"InPlace is not allowed as the buffer: this call has no in-place form there"},
		{"Allreduce into InPlace", api.Allreduce(four, pmpi.InPlace, 1, pmpi.Int32, pmpi.OpSum, w), pmpi.ClassBuffer,
			"InPlace is not allowed as the receive buffer"},
		{"Bcast from Root", api.Bcast(four, 1, pmpi.Int32, pmpi.Root, w), pmpi.ClassRoot,
			"root Root is for intercommunicators only: want a rank from 0 to 0"},
		{"Reduce to ProcNull", api.Reduce(four, make([]byte, 4), 1, pmpi.Int32, pmpi.OpSum, pmpi.ProcNull, w), pmpi.ClassRoot,
			"root ProcNull is for intercommunicators only"},
		{"ReduceScatter without counts", api.ReduceScatter(four, four, nil, pmpi.Int32, pmpi.OpSum, w), pmpi.ClassArg,
			"0 receive counts for 1 ranks (want one per rank)"},
	} {
		wantClass(t, tc.what, tc.err, tc.class, tc.says)
	}
	// Send and receive buffers that overlap where the call has no
	// in-place form: the error does not point to one.
	ring, err := api.CartCreate(w, []int{1}, []bool{true}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer api.CommFree(ring)
	twelve := make([]byte, 12)
	for _, tc := range []struct {
		what string
		err  error
	}{
		{"NeighborAllgather into its send buffer", api.NeighborAllgather(twelve[4:8], 1, pmpi.Int32, twelve[:8], 1, pmpi.Int32, ring)},
		{"NeighborAlltoall into its send buffer", api.NeighborAlltoall(twelve[:8], 1, pmpi.Int32, twelve[4:], 1, pmpi.Int32, ring)},
		{"ReduceLocal of overlapping buffers", api.ReduceLocal(twelve[:8], twelve[4:], 2, pmpi.Int32, pmpi.OpSum)},
	} {
		wantClass(t, tc.what, tc.err, pmpi.ClassBuffer, "the send and receive buffers overlap (this call has no in-place form: pass buffers that share no memory)")
	}
	// A w-form's blocks, not its buffers, must be apart: blocks
	// interleaved in one array are.
	one, at0, at4 := []int{1}, []int{0}, []int{4}
	i32 := []pmpi.Datatype{pmpi.Int32}
	copy(twelve, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if err := api.Alltoallw(twelve, one, at0, i32, twelve, one, at4, i32, w); err != nil {
		t.Errorf("Alltoallw of interleaved blocks: %v", err)
	} else if want := []byte{1, 2, 3, 4, 1, 2, 3, 4, 9, 10, 11, 12}; !bytes.Equal(twelve, want) {
		t.Errorf("Alltoallw of interleaved blocks left % x, want % x", twelve, want)
	}
	wantClass(t, "Alltoallw of blocks that overlap", api.Alltoallw(twelve[:8], one, at0, i32, twelve[2:], one, at0, i32, w),
		pmpi.ClassBuffer, "the send and receive buffers overlap (use the in-place form)")
	two, i32s := []int{1, 1}, []pmpi.Datatype{pmpi.Int32, pmpi.Int32}
	if err := api.NeighborAlltoallw(twelve, two, []int{0, 0}, i32s, twelve, two, []int{4, 8}, i32s, ring); err != nil {
		t.Errorf("NeighborAlltoallw of interleaved blocks: %v", err)
	}
	wantClass(t, "NeighborAlltoallw of blocks that overlap", api.NeighborAlltoallw(twelve, two, []int{0, 4}, i32s, twelve, two, []int{4, 8}, i32s, ring),
		pmpi.ClassBuffer, "the send and receive buffers overlap (this call has no in-place form: pass buffers that share no memory)")
	// So are a v-form's: a send block in the gap before the receive
	// buffer's first block, or between its blocks, passes; and a block of
	// no elements may point anywhere, before the buffer or past it.
	copy(twelve, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	at2 := []int{2}
	if err := api.Allgatherv(twelve[4:8], 1, pmpi.Int32, twelve, one, at2, pmpi.Int32, w); err != nil {
		t.Errorf("Allgatherv from the gap before the receive block: %v", err)
	} else if want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8}; !bytes.Equal(twelve, want) {
		t.Errorf("Allgatherv from the gap before the receive block left % x, want % x", twelve, want)
	}
	if err := api.Alltoallv(twelve, one, at0, pmpi.Int32, twelve, one, at2, pmpi.Int32, w); err != nil {
		t.Errorf("Alltoallv of interleaved blocks: %v", err)
	}
	sixteen := make([]byte, 16)
	if err := api.NeighborAlltoallv(sixteen, two, []int{0, 1}, pmpi.Int32, sixteen, two, []int{2, 3}, pmpi.Int32, ring); err != nil {
		t.Errorf("NeighborAlltoallv of interleaved blocks: %v", err)
	}
	if err := api.NeighborAllgatherv(twelve[:4], 1, pmpi.Int32, twelve, two, []int{1, 2}, pmpi.Int32, ring); err != nil {
		t.Errorf("NeighborAllgatherv of interleaved blocks: %v", err)
	}
	for _, d := range []int{-1, 5} {
		if err := api.Gatherv(four, 0, pmpi.Int32, four, []int{0}, []int{d}, pmpi.Int32, 0, w); err != nil {
			t.Errorf("Gatherv of no elements at displacement %d: %v", d, err)
		}
	}
	wantClass(t, "Allgatherv from its receive block", api.Allgatherv(twelve[8:], 1, pmpi.Int32, twelve, one, at2, pmpi.Int32, w),
		pmpi.ClassBuffer, "the send and receive buffers overlap (use the in-place form)")
	wantClass(t, "NeighborAllgatherv into its send block", api.NeighborAllgatherv(twelve[:4], 1, pmpi.Int32, twelve, two, []int{0, 2}, pmpi.Int32, ring),
		pmpi.ClassBuffer, "the send and receive buffers overlap (this call has no in-place form: pass buffers that share no memory)")
}

// An in-place reduction on one rank leaves the buffer as it is and, like
// every in-place call, allocates no copy of it.
func testInPlaceAllocs(t *testing.T, api pmpi.API, w *pmpi.Comm) {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i)
	}
	want := bytes.Clone(buf)
	n := len(buf) / 8
	allocs := testing.AllocsPerRun(50, func() {
		if err := api.Allreduce(pmpi.InPlace, buf, n, pmpi.Int64, pmpi.OpSum, w); err != nil {
			t.Fatal(err)
		}
		if err := api.Reduce(pmpi.InPlace, buf, n, pmpi.Int64, pmpi.OpMax, 0, w); err != nil {
			t.Fatal(err)
		}
		if err := api.Scan(pmpi.InPlace, buf, n, pmpi.Int64, pmpi.OpSum, w); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("in-place Allreduce, Reduce and Scan of 64 KiB: %v allocations a round, want 0", allocs)
	}
	if !bytes.Equal(buf, want) {
		t.Error("in-place reductions on one rank changed the buffer")
	}
}
