package sm

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// cut splits data into pieces of the lengths in sizes, repeated as long
// as data lasts (the last piece takes what is left). A 0 in sizes gives
// an empty piece.
func cut(data []byte, sizes []int) [][]byte {
	var out [][]byte
	for i := 0; len(data) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(data))
		out = append(out, data[:n:n])
		data = data[n:]
	}
	return out
}

// scatterInPlace lays pieces out in one buffer with a 5-byte gap of
// garbage before each, as the blocks of a strided datatype lie, and
// returns the pieces' slices of it.
func scatterInPlace(pieces [][]byte) [][]byte {
	total := 0
	for _, p := range pieces {
		total += len(p) + 5
	}
	buf := bytes.Repeat([]byte{0xee}, total)
	out := make([][]byte, len(pieces))
	at := 0
	for i, p := range pieces {
		at += 5
		out[i] = buf[at : at+len(p) : at+len(p)]
		copy(out[i], p)
		at += len(p)
	}
	return out
}

// dstsOf makes destinations of the lengths in sizes, as many as it takes
// to hold n bytes, each followed by poisoned bytes in its capacity.
func dstsOf(n int, sizes []int) [][]byte {
	ds := cut(make([]byte, n), sizes)
	for i, d := range ds {
		b := bytes.Repeat([]byte{0xa5}, len(d)+16)
		ds[i] = b[:len(d)]
	}
	return ds
}

// checkDsts fails t unless dsts, concatenated, are want, with their
// poisoned tails intact.
func checkDsts(t *testing.T, what string, dsts [][]byte, want []byte) {
	t.Helper()
	at := 0
	for i, d := range dsts {
		if !bytes.Equal(d, want[at:at+len(d)]) {
			for k := range d {
				if d[k] != want[at+k] {
					t.Fatalf("%s: destination %d of %d (%d bytes): byte %d, at %d of the message, is %#x, want %#x",
						what, i, len(dsts), len(d), k, at+k, d[k], want[at+k])
				}
			}
		}
		for k, c := range d[len(d):cap(d)] {
			if c != 0xa5 {
				t.Fatalf("%s: destination %d: wrote byte %d past its end", what, i, k)
			}
		}
		at += len(d)
	}
}

// cmaJob is a 2-rank job whose ranks may read each other's memory, or
// skips t.
func cmaJob(t *testing.T) *testJob {
	t.Helper()
	j := newTestJob(t, 2)
	if j.mods[1].SingleCopyMin(0) == 0 || j.mods[0].SingleCopyMin(1) == 0 {
		t.Skip("cross-memory attach is not allowed here")
	}
	return j
}

// vectorCases are the shapes that cross the batches of maxIovecs a side
// in every way: pieces of the sender (src) and of the receiver (dst),
// given as lengths repeated over the message.
var vectorCases = []struct {
	name     string
	total    int
	src, dst []int
}{
	{"one piece each", 1000, []int{1000}, []int{1000}},
	{"many small pieces each side", 3*maxIovecs*37 + 11, []int{37, 1, 90, 5}, []int{13, 64, 29}},
	// The remote batch ends at byte 10240, inside the fifth destination.
	{"a destination straddles the remote batch", maxIovecs*10 + 100, append(repeat(10, maxIovecs), 100), []int{2100}},
	// The local batch ends at byte 8192, inside the third piece.
	{"a piece straddles the local batch", 8240, []int{4000, 4000, 240}, []int{8}},
	{"one huge piece into many destinations", 4<<20 + 3, []int{4<<20 + 3}, []int{1, 4096, 333, 70000}},
	{"many pieces into one destination", 5000 * 13, []int{13}, []int{5000 * 13}},
	{"empty pieces and destinations", 20000, []int{0, 7, 0, 0, 300}, []int{0, 0, 1000, 0, 3}},
	{"fewer pieces than the descriptor's first read", 31*100 - 1, []int{100}, []int{77, 1}},
	{"just more pieces than its first read", 32 * 100, []int{100}, []int{3000}},
}

func repeat(n, k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = n
	}
	return s
}

// TestReadVector: rank 1 reads what rank 0 exposed in pieces into
// destinations of its own; the bytes arrive in order, whatever the
// pieces' shapes on either side, read whole or only their first bytes.
func TestReadVector(t *testing.T) {
	j := cmaJob(t)
	for i, c := range vectorCases {
		msg := noise(c.total, uint64(i))
		for _, adjacent := range []bool{false, true} {
			bufs := cut(msg, c.src) // one piece after the other in msg: described as one
			if !adjacent {
				bufs = scatterInPlace(bufs)
			}
			token, keep := j.mods[0].ExposeVector(1, bufs)
			for _, n := range []int{c.total, c.total/2 + 1} {
				what := fmt.Sprintf("%s: %d of %d bytes, adjacent %v", c.name, n, c.total, adjacent)
				dsts := dstsOf(n, c.dst)
				if err := j.mods[1].ReadVector(0, token, dsts); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkDsts(t, what, dsts, msg)
			}
			runtime.KeepAlive(keep)
		}
	}
}

// TestReadScatter: rank 1 reads a buffer that rank 0 exposed whole into
// destinations of many shapes.
func TestReadScatter(t *testing.T) {
	j := cmaJob(t)
	for i, c := range vectorCases {
		msg := noise(c.total, uint64(i))
		token := j.mods[0].Expose(1, msg)
		for _, n := range []int{c.total, c.total/2 + 1} {
			what := fmt.Sprintf("%s: %d of %d bytes", c.name, n, c.total)
			dsts := dstsOf(n, c.dst)
			if err := j.mods[1].ReadScatter(0, token, dsts); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			checkDsts(t, what, dsts, msg)
		}
		runtime.KeepAlive(msg)
	}
}

// TestReadVectorNothing: no destinations, or only empty ones, read
// nothing, not even the descriptor: 0 is no address.
func TestReadVectorNothing(t *testing.T) {
	j := cmaJob(t)
	for _, dsts := range [][][]byte{nil, {{}, nil}} {
		if err := j.mods[1].ReadVector(0, 0, dsts); err != nil {
			t.Errorf("ReadVector into %d empty destinations: %v", len(dsts), err)
		}
		if err := j.mods[1].ReadScatter(0, 0, dsts); err != nil {
			t.Errorf("ReadScatter into %d empty destinations: %v", len(dsts), err)
		}
	}
}

// TestExposeVectorDescriptor: the descriptor lists the non-empty pieces,
// in order, with room for the reader's first read however few they are.
func TestExposeVectorDescriptor(t *testing.T) {
	j := cmaJob(t)
	a, b := []byte("abc"), []byte("de")
	token, keep := j.mods[0].ExposeVector(1, [][]byte{nil, a, {}, b})
	first, ok := keep.(*piece)
	if !ok || uint64(uintptr(unsafe.Pointer(first))) != token {
		t.Fatalf("keep is %T, not the descriptor at the token", keep)
	}
	desc := unsafe.Slice(first, 1+descFirst)
	if desc[0].length != 2 || desc[1].length != 3 || desc[2].length != 2 ||
		desc[1].base != unsafe.Pointer(&a[0]) || desc[2].base != unsafe.Pointer(&b[0]) {
		t.Fatalf("descriptor %v does not list the two pieces", desc[:3])
	}
}

// TestExposeVectorJoinsAdjacentPieces: pieces that follow each other in
// memory are one piece of the descriptor, those apart are not.
func TestExposeVectorJoinsAdjacentPieces(t *testing.T) {
	j := cmaJob(t)
	buf := make([]byte, 100)
	_, keep := j.mods[0].ExposeVector(1, [][]byte{buf[0:10], buf[10:30], {}, buf[30:31], buf[40:50], buf[50:60], buf[0:5]})
	desc := unsafe.Slice(keep.(*piece), 1+descFirst)
	want := []struct{ at, n int }{{0, 31}, {40, 20}, {0, 5}}
	if int(desc[0].length) != len(want) {
		t.Fatalf("the descriptor lists %d pieces, want %d", desc[0].length, len(want))
	}
	for i, w := range want {
		if p := desc[1+i]; p.base != unsafe.Pointer(&buf[w.at]) || int(p.length) != w.n {
			t.Errorf("piece %d is %d bytes at offset %d, want %d at %d",
				i, p.length, uintptr(p.base)-uintptr(unsafe.Pointer(&buf[0])), w.n, w.at)
		}
	}
	// A joined piece may be an allocation of its own: the entries past the
	// count keep it reachable.
	for k, at := range []int{10, 30, 50} {
		if p := desc[len(desc)-1-k]; p.base != unsafe.Pointer(&buf[at]) {
			t.Errorf("entry %d from the end does not hold the piece joined at offset %d", k, at)
		}
	}
}

// TestReadVectorErrors: a peer that is not local is named in the error.
func TestReadVectorErrors(t *testing.T) {
	j := cmaJob(t)
	dst := [][]byte{make([]byte, 8)}
	for _, rank := range []int{-1, 1, 2} {
		if err := j.mods[1].ReadVector(rank, 8, dst); err == nil {
			t.Errorf("ReadVector from world rank %d succeeded", rank)
		} else if want := fmt.Sprintf("world rank %d", rank); !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("ReadVector from world rank %d: %v; want it to name %q", rank, err, want)
		}
		if err := j.mods[1].ReadScatter(rank, 8, dst); err == nil {
			t.Errorf("ReadScatter from world rank %d succeeded", rank)
		}
	}
}
