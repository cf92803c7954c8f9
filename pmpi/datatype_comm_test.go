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
	uncommitted, _ := TypeVector(2, 1, 2, Int32)
	freed, _ := TypeVector(2, 1, 2, Int32)
	_ = freed.Commit()
	_ = freed.Free()
	vec, _ := TypeVector(2, 1, 2, Int32) // 4 bytes, a gap of 4, 4 bytes
	_ = vec.Commit()
	contig, _ := TypeContiguous(3, Int32)
	_ = contig.Commit()
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
