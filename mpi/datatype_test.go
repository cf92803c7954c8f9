package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// The layouts need no Init: they are built, checked and packed locally.
// The multi-process tests in test/p2p move them between ranks.

func TestLayoutPackRoundTrip(t *testing.T) {
	const rows, cols = 4, 5
	grid := make([]float64, rows*cols)
	for i := range grid {
		grid[i] = float64(i)
	}
	col, err := mpi.Vector[float64](rows, 1, cols)
	if err != nil {
		t.Fatal(err)
	}
	if col.Size() != rows*8 {
		t.Errorf("size %d", col.Size())
	}
	n, err := mpi.PackSize(1, col)
	if err != nil || n != rows*8 {
		t.Fatalf("pack size %d, %v", n, err)
	}
	packed := make([]byte, n)
	if _, err := mpi.Pack(grid[3:], 1, col, packed, 0); err != nil {
		t.Fatal(err)
	}
	flat := make([]float64, rows)
	if _, err := mpi.Unpack(packed, 0, flat, rows, mpi.LayoutOf[float64]()); err != nil {
		t.Fatal(err)
	}
	if want := []float64{3, 8, 13, 18}; !slices.Equal(flat, want) {
		t.Errorf("column 3 packs %v, want %v", flat, want)
	}
	ext := make([]byte, 32)
	if _, err := mpi.PackExternal(grid[3:], 1, col, ext, 0); err != nil {
		t.Fatal(err)
	}
	if ext[0] != 0x40 || ext[1] != 0x08 { // 3.0 is 0x4008000000000000
		t.Errorf("external32 of 3.0 starts %x", ext[:2])
	}
	back := make([]float64, rows*cols)
	if _, err := mpi.UnpackExternal(ext, 0, back[3:], 1, col); err != nil || back[8] != 8 || back[4] != 0 {
		t.Errorf("unpack external: %v, %v", back, err)
	}
}

func TestLayoutErrors(t *testing.T) {
	type named struct {
		ID   int
		Name string
	}
	if _, err := mpi.Pack(make([]named, 1), 1, mpi.LayoutOf[named](), make([]byte, 64), 0); !errors.Is(err, mpi.ErrType) ||
		!strings.Contains(err.Error(), "element type mpi_test.named: field Name is a string") {
		t.Errorf("pack of a struct with a string: %v", err)
	}
	if _, err := mpi.Subarray[int32]([]int{4, 4}, []int{5, 1}, []int{0, 0}, mpi.OrderC); !errors.Is(err, mpi.ErrArg) ||
		!strings.Contains(err.Error(), "subsize 5 of dimension 0 (want 0 to its size 4)") {
		t.Errorf("subarray larger than the array: %v", err)
	}
	var zero mpi.Layout[float64]
	if _, err := mpi.PackSize(1, zero); !errors.Is(err, mpi.ErrType) {
		t.Errorf("the zero layout: %v", err)
	}
	l, _ := mpi.Contiguous[int16](3)
	if err := l.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := mpi.PackSize(1, l); !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "was freed") {
		t.Errorf("a freed layout: %v", err)
	}
}

// TestNewOpOverStruct checks that a user operation may be made for a
// struct type: its datatype is a committed Go type.
func TestNewOpOverStruct(t *testing.T) {
	type pair struct {
		Lo int32
		Hi float64
	}
	op, err := mpi.NewOp(func(in, inout []pair) {}, true)
	if err != nil || op.Name() != "user-defined" {
		t.Fatalf("NewOp over a struct: %v, %v", op, err)
	}
}

// TestLayoutBounds builds each byte-displacement constructor and reads
// its bounds and name back.
func TestLayoutBounds(t *testing.T) {
	h, err := mpi.Hindexed[int32]([]int{2, 1}, []int{16, 0})
	if err != nil {
		t.Fatal(err)
	}
	if lb, ext := h.Extent(); lb != 0 || ext != 24 {
		t.Errorf("hindexed: lb %d extent %d, want 0 24", lb, ext)
	}
	hb, err := mpi.HindexedBlock[int32](2, []int{12, 4})
	if err != nil {
		t.Fatal(err)
	}
	if lb, ext := hb.TrueExtent(); lb != 4 || ext != 16 {
		t.Errorf("hindexed block: true lb %d extent %d, want 4 16", lb, ext)
	}
	nested, err := hb.HindexedBlock(1, []int{40, 0})
	if err != nil || nested.Size() != 32 {
		t.Fatalf("hindexed block of hindexed blocks: size %d, %v", nested.Size(), err)
	}
	if got := h.String(); got != "hindexed(2,1;16,0;MPI_INT32_T)" {
		t.Errorf("name %q", got)
	}
	if dt := h.Datatype(); !dt.Committed() || dt == mpi.TypeOf[int32]() || dt.Size() != h.Size() {
		t.Error("a layout's datatype is not its own")
	}
	n, err := mpi.PackExternalSize(3, mpi.LayoutOf[mpi.Pair[float64]]())
	if err != nil || n != 36 {
		t.Errorf("external32 of three Pair[float64]: %d bytes, %v; want 36", n, err)
	}
}

// TestDarray packs rank 2's part of a 10×3 array whose rows are dealt out
// by blocks to 3 processes: blocks of 4 rows, the last one short.
func TestDarray(t *testing.T) {
	l, err := mpi.Darray[int32](3, 2, []int{10, 3}, []mpi.Distribution{mpi.DistributeBlock, mpi.DistributeNone},
		[]int{mpi.DistributeDefaultDarg, mpi.DistributeDefaultDarg}, []int{3, 1}, mpi.OrderC)
	if err != nil {
		t.Fatal(err)
	}
	global := make([]int32, 30)
	for i := range global {
		global[i] = int32(i)
	}
	packed := make([]byte, 64)
	n, err := mpi.Pack(global, 1, l, packed, 0)
	if err != nil || n != 6*4 {
		t.Fatalf("pack: %d bytes, %v; want 24", n, err)
	}
	got := make([]int32, 6)
	if _, err := mpi.Unpack(packed, 0, got, 6, mpi.LayoutOf[int32]()); err != nil {
		t.Fatal(err)
	}
	if want := []int32{24, 25, 26, 27, 28, 29}; !slices.Equal(got, want) {
		t.Errorf("rank 2 holds %v, want rows 8 and 9: %v", got, want)
	}
	if lb, ext := l.Extent(); lb != 0 || ext != 30*4 {
		t.Errorf("lb %d extent %d, want 0 and the whole array's 120", lb, ext)
	}
	if err := l.Free(); err != nil {
		t.Fatal(err)
	}
	_, err = mpi.Darray[int32](4, 0, []int{10}, []mpi.Distribution{mpi.DistributeBlock}, []int{2}, []int{4}, mpi.OrderC)
	if !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "block size 2 of dimension 0 leaves elements out") {
		t.Errorf("blocks of 2 over 4 processes of 10 elements: %v", err)
	}
}
