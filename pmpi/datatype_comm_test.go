package pmpi

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckArgsDerived checks a point-to-point call's arguments with
// derived datatypes: each bad one fails with its class and says what is
// allowed; a good contiguous type gives its bytes, a packed one the
// whole buffer.
func TestCheckArgsDerived(t *testing.T) {
	comm := &Comm{group: []int{0, 1}}
	name := "MPI_COMM_WORLD"
	comm.name.Store(&name)
	uncommitted, _ := theAPI.TypeVector(2, 1, 2, Int32)
	freed, _ := theAPI.TypeVector(2, 1, 2, Int32)
	_ = theAPI.TypeCommit(freed)
	_ = theAPI.TypeFree(freed)
	vec, _ := theAPI.TypeVector(2, 1, 2, Int32) // 4 bytes, a gap of 4, 4 bytes
	_ = theAPI.TypeCommit(vec)
	contig, _ := theAPI.TypeContiguous(3, Int32)
	_ = theAPI.TypeCommit(contig)
	for _, c := range []struct {
		name  string
		buf   int
		count int
		dt    Datatype
		class error
		want  string
	}{
		{"null", 8, 1, Datatype{}, ErrType, "invalid datatype (MPI_DATATYPE_NULL)"},
		{"uncommitted", 64, 1, uncommitted, ErrType, "is not committed (commit a type before moving data with it)"},
		{"freed", 64, 1, freed, ErrType, "was freed"},
		{"negative count", 64, -1, vec, ErrCount, "count -1 is negative"},
		{"short buffer", 16, 2, vec, ErrBuffer, "buffer of 16 bytes is too small for 2 elements of vector(2,1,2,MPI_INT32_T) (8 bytes of data, extent 12): they need 24 bytes"},
		{"Go type", 64, 1, TypeOf[[2]*int](), ErrType, "element type [2]*int: is a pointer"},
	} {
		_, err := checkArgs("send", comm, make([]byte, c.buf), c.count, c.dt, 1, 0, false)
		if !errors.Is(err, c.class) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "send on comm MPI_COMM_WORLD: ") {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.class, c.want)
		}
	}
	if b, err := checkArgs("send", comm, make([]byte, 64), 2, contig, 1, 0, false); err != nil || len(b) != 24 {
		t.Errorf("contiguous type: %d bytes, %v; want 24", len(b), err)
	}
	if b, err := checkArgs("send", comm, make([]byte, 64), 2, vec, 1, 0, false); err != nil || len(b) != 64 {
		t.Errorf("packed type: %d bytes, %v; want the whole buffer", len(b), err)
	}
}

// TestCheckArgsDerivedAllocates nothing: a call with a derived type
// names itself only when it fails.
func TestCheckArgsDerivedAllocatesNothing(t *testing.T) {
	comm := &Comm{group: []int{0, 1}}
	name := "MPI_COMM_WORLD"
	comm.name.Store(&name)
	vec, _ := theAPI.TypeVector(2, 1, 2, Int32)
	_ = theAPI.TypeCommit(vec)
	contig, _ := theAPI.TypeContiguous(3, Int32)
	_ = theAPI.TypeCommit(contig)
	buf := make([]byte, 64)
	for _, dt := range []Datatype{vec, contig} {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := checkArgs("send", comm, buf, 2, dt, 1, 0, false); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("checkArgs with %s allocates %.0f times a call", dt.Name(), n)
		}
	}
}

// TestDirectConversion checks the types whose data is one contiguous
// block away from the origin: they move straight from and into the
// user's buffer, the bytes packing would give.
func TestDirectConversion(t *testing.T) {
	mk := committer(t)
	row := mk(theAPI.TypeSubarray([]int{4, 6}, []int{1, 3}, []int{2, 1}, OrderC, Int32))        // ints 13, 14, 15
	shifted := mk(theAPI.TypeResized(mk(theAPI.TypeHindexed([]int{2}, []int{8}, Int32)), 0, 8)) // ints 2, 3; extent 8
	col := mk(theAPI.TypeVector(3, 1, 6, Int32))
	for _, c := range []struct {
		name   string
		dt     Datatype
		count  int
		direct bool
	}{
		{"a subarray's row", row, 1, true},
		{"two of a subarray's rows", row, 2, false},
		{"block past its extent, count 3", shifted, 3, true},
		{"a column", col, 1, false},
	} {
		buf := Bytes(seq(64))
		c1 := packFor(c.dt.t, buf, c.count)
		if c1.direct != c.direct {
			t.Errorf("%s: direct %v, want %v", c.name, c1.direct, c.direct)
		}
		want := make([]byte, c.count*c.dt.Size())
		if _, err := theAPI.Pack(buf, c.count, c.dt, want, 0); err != nil {
			t.Fatal(err)
		}
		if got := *c1.packed; string(got) != string(want) {
			t.Errorf("%s: sends %v, want %v", c.name, view[int32](got), view[int32](want))
		}
		c1.release()
		// A receive lands where unpacking would put the data.
		into := Bytes(make([]int32, 64))
		data, c2 := streamFor(c.dt.t, into, c.count)
		if c2 == nil {
			copy(data, want)
		} else {
			c2.Unpack(want, 0)
			c2.release()
		}
		if got := picks(t, view[int32](into), c.count, c.dt); string(Bytes(got)) != string(want) {
			t.Errorf("%s: received %v, want %v", c.name, got, view[int32](want))
		}
	}
}
