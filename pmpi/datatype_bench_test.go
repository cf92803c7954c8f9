package pmpi

import (
	"fmt"
	"testing"
)

// column is a column of a rows×width grid of float64, and the grid.
func column(b *testing.B, rows, width int) (Datatype, []byte) {
	col, err := theAPI.TypeVector(rows, 1, width, Float64)
	if err == nil {
		err = theAPI.TypeCommit(col)
	}
	if err != nil {
		b.Fatal(err)
	}
	return col, Bytes(make([]float64, rows*width))
}

// BenchmarkPackColumn packs a column of a 1024×64 grid of float64: the
// copy a non-contiguous send makes, and what a vectored transport would
// save (Datatype.Blocks lists the same 1024 blocks of 8 bytes).
func BenchmarkPackColumn(b *testing.B) {
	col, grid := column(b, 1024, 64)
	out := make([]byte, col.Size())
	b.SetBytes(int64(col.Size()))
	for b.Loop() {
		if _, err := theAPI.Pack(grid, 1, col, out, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnpackColumn is the receive's side of BenchmarkPackColumn.
func BenchmarkUnpackColumn(b *testing.B) {
	col, grid := column(b, 1024, 64)
	in := make([]byte, col.Size())
	b.SetBytes(int64(col.Size()))
	for b.Loop() {
		if _, err := theAPI.Unpack(in, 0, grid, 1, col); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackColumn1MiB packs 1 MiB of a column: 131072 rows of a
// grid 8 wide, 8 MiB, as the ddt benchmark of gompi-bench sends.
func BenchmarkPackColumn1MiB(b *testing.B) {
	col, grid := column(b, 131072, 8)
	out := make([]byte, col.Size())
	b.SetBytes(int64(col.Size()))
	for b.Loop() {
		if _, err := theAPI.Pack(grid, 1, col, out, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnpackColumn1MiB is the receive's side of
// BenchmarkPackColumn1MiB.
func BenchmarkUnpackColumn1MiB(b *testing.B) {
	col, grid := column(b, 131072, 8)
	in := make([]byte, col.Size())
	b.SetBytes(int64(col.Size()))
	for b.Loop() {
		if _, err := theAPI.Unpack(in, 0, grid, 1, col); err != nil {
			b.Fatal(err)
		}
	}
}

// record is a padded Go struct: 19 bytes of data in 32.
type record struct {
	Tag  int8
	X    float64
	Pos  [3]int16
	Rank int32
}

// BenchmarkPackRecords packs 1024 padded Go structs, field by field.
func BenchmarkPackRecords(b *testing.B) {
	dt := TypeOf[record]()
	recs := Bytes(make([]record, 1024))
	out := make([]byte, 1024*dt.Size())
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, err := theAPI.Pack(recs, 1024, dt, out, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnpackRecords is the receive's side of BenchmarkPackRecords.
func BenchmarkUnpackRecords(b *testing.B) {
	dt := TypeOf[record]()
	recs := Bytes(make([]record, 1024))
	in := make([]byte, 1024*dt.Size())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := theAPI.Unpack(in, 0, recs, 1024, dt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackBlocks packs a vector of 30000 blocks of 2, 3 and 6
// float64 (16, 24 and 48 bytes), 4, 4 and 8 apart: blocks of a few words,
// as a grid's pairs of columns or a particle's coordinates.
func BenchmarkPackBlocks(b *testing.B) {
	for _, c := range []struct{ block, stride int }{{2, 4}, {3, 4}, {6, 8}} {
		b.Run(fmt.Sprintf("%dB", 8*c.block), func(b *testing.B) {
			vec, err := theAPI.TypeVector(30000, c.block, c.stride, Float64)
			if err == nil {
				err = theAPI.TypeCommit(vec)
			}
			if err != nil {
				b.Fatal(err)
			}
			grid := Bytes(make([]float64, 30000*c.stride))
			out := make([]byte, vec.Size())
			b.SetBytes(int64(vec.Size()))
			for b.Loop() {
				if _, err := theAPI.Pack(grid, 1, vec, out, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFragmentBlocks lists the blocks of each 128 KiB fragment of a
// 1 MiB vector of 2 KiB rows, as a vectored transport asks for them
// fragment by fragment (tcp's writev and readv).
func BenchmarkFragmentBlocks(b *testing.B) {
	rows, err := theAPI.TypeVector(512, 256, 288, Float64)
	if err == nil {
		err = theAPI.TypeCommit(rows)
	}
	if err != nil {
		b.Fatal(err)
	}
	c := &conversion{user: Bytes(make([]float64, 512*288)), t: rows.t, count: 1}
	var parts [][]byte
	const frag = 128 << 10
	for b.Loop() {
		for off := 0; off < c.Size(); off += frag {
			parts = c.Blocks(parts[:0], off, frag)
		}
	}
}

// BenchmarkTypeMake makes, commits and frees a type, as a program that
// builds one at each step of a loop does: a vector of 64 float64 8
// apart, and a struct of an int32, two float64 and an int64.
func BenchmarkTypeMake(b *testing.B) {
	cycle := func(b *testing.B, make func() (Datatype, error)) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := make()
			if err == nil {
				err = theAPI.TypeCommit(d)
			}
			if err == nil {
				err = theAPI.TypeFree(d)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("vector", func(b *testing.B) {
		cycle(b, func() (Datatype, error) { return theAPI.TypeVector(64, 1, 8, Float64) })
	})
	lens, displs, types := []int{1, 2, 1}, []int{0, 8, 24}, []Datatype{Int32, Float64, Int64}
	b.Run("struct", func(b *testing.B) {
		cycle(b, func() (Datatype, error) { return theAPI.TypeStruct(lens, displs, types) })
	})
}
