package pmpi

import "testing"

// BenchmarkPackColumn packs a column of a 1024×64 grid of float64: the
// copy a non-contiguous send makes, and what a vectored transport would
// save (Datatype.Blocks lists the same 1024 blocks of 8 bytes).
func BenchmarkPackColumn(b *testing.B) {
	col, _ := TypeVector(1024, 1, 64, Float64)
	_ = col.Commit()
	grid := Bytes(make([]float64, 1024*64))
	out := make([]byte, col.Size())
	b.SetBytes(int64(col.Size()))
	for b.Loop() {
		if _, err := Pack(grid, 1, col, out, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackRecords packs 1024 padded Go structs (19 bytes of data in
// 32), field by field.
func BenchmarkPackRecords(b *testing.B) {
	type record struct {
		Tag  int8
		X    float64
		Pos  [3]int16
		Rank int32
	}
	dt := TypeOf[record]()
	recs := Bytes(make([]record, 1024))
	out := make([]byte, 1024*dt.Size())
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, err := Pack(recs, 1024, dt, out, 0); err != nil {
			b.Fatal(err)
		}
	}
}
