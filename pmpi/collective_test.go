package pmpi

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/components/coll/basic"
	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// TestCollErrorContext: a component's error reaches the caller with the
// call, the communicator and the component that served it, each named
// once, and its class kept.
func TestCollErrorContext(t *testing.T) {
	cc := colltest.NewWorld(3).Comm(0)
	tab, err := coll.Build(cc, []coll.Candidate{{Name: "basic", Component: &basic.Component{}, Priority: 10}}, coll.Host{})
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Free()
	comm := &Comm{colls: tab}
	name := "MPI_COMM_WORLD"
	comm.name.Store(&name)
	sum := colltest.SumInt64{}
	for _, tc := range []struct {
		op  string // as pmpi names it
		err error  // what the component returned
	}{
		{"bcast", tab.Bcast(cc, make([]byte, 8), 5)},
		{"allreduce", tab.Allreduce(cc, make([]byte, 8), make([]byte, 16), sum)},
		{"reduce scatter", tab.ReduceScatter(cc, make([]byte, 16), make([]byte, 8), []int{8, 4, 4}, sum)},
		{"reduce scatter block", tab.ReduceScatterBlock(cc, make([]byte, 16), make([]byte, 8), sum)},
	} {
		if tc.err == nil {
			t.Fatalf("%s: the component returned no error", tc.op)
		}
		k := collCall{op: tc.op, comm: comm, t: tab}
		got := k.done(tc.err)
		msg := got.Error()
		for _, part := range []string{tc.op + " on ", "MPI_COMM_WORLD", "coll basic"} {
			if n := strings.Count(msg, part); n != 1 {
				t.Errorf("%s: %q names %q %d times, want once", tc.op, msg, part, n)
			}
		}
		if want := tc.op + " on comm MPI_COMM_WORLD: coll basic: "; !strings.HasPrefix(msg, want) {
			t.Errorf("%s: %q does not begin %q", tc.op, msg, want)
		}
		var e *Error
		if !errors.As(got, &e) || e.Class != classOf(tc.err) || !errors.Is(got, tc.err) {
			t.Errorf("%s: %v does not keep the component's error and its class %v", tc.op, got, classOf(tc.err))
		}
	}
}
