package self

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/mca"
)

// silent is a communicator of one rank that counts every attempt to
// communicate and fails it: self must never send or receive.
type silent struct{ msgs atomic.Int32 }

var errMessage = errors.New("self sent or received a message")

type request struct{}

func (request) Done() bool  { return true }
func (request) Wait() error { return errMessage }

func (*silent) Rank() int                             { return 0 }
func (*silent) Size() int                             { return 1 }
func (*silent) Name() string                          { return "silent" }
func (s *silent) Send([]byte, int, int) error         { s.msgs.Add(1); return errMessage }
func (s *silent) Recv([]byte, int, int) error         { s.msgs.Add(1); return errMessage }
func (s *silent) Isend([]byte, int, int) coll.Request { s.msgs.Add(1); return request{} }
func (s *silent) Irecv([]byte, int, int) coll.Request { s.msgs.Add(1); return request{} }
func (s *silent) Wait(...coll.Request) error          { return errMessage }

func fill(seed, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seed*31 + i*7 + i/251)
	}
	return b
}

const gap = 8

func filled(n int) []byte { return bytes.Repeat([]byte{0xEE}, n) }

// within is buf with want written at gap bytes in, the layout of the
// v-variants' one block.
func within(size int, want []byte) []byte {
	b := filled(size)
	copy(b[gap:], want)
	return b
}

func TestCollectives(t *testing.T) {
	m := newModule()
	for _, k := range []int{0, 16, 48, 3072, 256 << 10} {
		send := fill(k, k)
		v := []int{k}
		d := []int{gap}
		size := k + 2*gap
		cases := []struct {
			name string
			f    func(c coll.Comm, recv []byte) error
			recv int    // length of recv
			want []byte // its content after
		}{
			{"barrier", func(c coll.Comm, _ []byte) error { return m.Barrier(c) }, 0, filled(0)},
			{"bcast", func(c coll.Comm, _ []byte) error { return m.Bcast(c, bytes.Clone(send), 0) }, 0, filled(0)},
			{"reduce", func(c coll.Comm, r []byte) error { return m.Reduce(c, send, r, colltest.SumInt64{}, 0) }, k, send},
			{"allreduce", func(c coll.Comm, r []byte) error { return m.Allreduce(c, send, r, colltest.Affine{}) }, k, send},
			{"gather", func(c coll.Comm, r []byte) error { return m.Gather(c, send, r, 0) }, k, send},
			{"gatherv", func(c coll.Comm, r []byte) error { return m.Gatherv(c, send, r, v, d, 0) }, size, within(size, send)},
			{"scatter", func(c coll.Comm, r []byte) error { return m.Scatter(c, send, r, 0) }, k, send},
			{"scatterv", func(c coll.Comm, r []byte) error {
				return m.Scatterv(c, within(size, send), v, d, r, 0)
			}, k, send},
			{"allgather", func(c coll.Comm, r []byte) error { return m.Allgather(c, send, r) }, k, send},
			{"allgatherv", func(c coll.Comm, r []byte) error { return m.Allgatherv(c, send, r, v, d) }, size, within(size, send)},
			{"alltoall", func(c coll.Comm, r []byte) error { return m.Alltoall(c, send, r) }, k, send},
			{"alltoallv", func(c coll.Comm, r []byte) error {
				return m.Alltoallv(c, within(k+gap, send), v, d, r, v, []int{0})
			}, k + 1, append(bytes.Clone(send), 0xEE)},
			{"alltoallw", func(c coll.Comm, r []byte) error { return m.Alltoallw(c, [][]byte{send}, [][]byte{r}) }, k, send},
			{"reduce_scatter", func(c coll.Comm, r []byte) error {
				return m.ReduceScatter(c, send, r, v, colltest.Affine{})
			}, k, send},
			{"reduce_scatter_block", func(c coll.Comm, r []byte) error {
				return m.ReduceScatterBlock(c, send, r, colltest.SumInt64{})
			}, k, send},
			{"scan", func(c coll.Comm, r []byte) error { return m.Scan(c, send, r, colltest.Affine{}) }, k, send},
			{"exscan", func(c coll.Comm, r []byte) error { return m.Exscan(c, send, r, colltest.SumInt64{}) }, k, filled(k)},
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/b%d", tc.name, k), func(t *testing.T) {
				c := &silent{}
				recv := filled(tc.recv)
				if err := tc.f(c, recv); err != nil {
					t.Fatal(err)
				}
				if n := c.msgs.Load(); n != 0 {
					t.Errorf("%d messages", n)
				}
				if !bytes.Equal(recv, tc.want) {
					t.Errorf("recv differs from what it should be")
				}
				if !bytes.Equal(send, fill(k, k)) {
					t.Errorf("send was written")
				}
			})
		}
	}
}

func TestBadArguments(t *testing.T) {
	m := newModule()
	sum := colltest.SumInt64{}
	b := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		coll, want string
		err        error
	}{
		{"bcast", "root 1 is not a rank", m.Bcast(&silent{}, b(8), 1)},
		{"reduce", "recv holds 0 bytes, want 8", m.Reduce(&silent{}, b(8), nil, sum, 0)},
		{"reduce", "12 bytes are not a whole number of the operation's 8-byte elements", m.Reduce(&silent{}, b(12), b(12), sum, 0)},
		{"allreduce", "no reduction operation", m.Allreduce(&silent{}, b(8), b(8), nil)},
		{"gather", "recv holds 16 bytes, want 8", m.Gather(&silent{}, b(8), b(16), 0)},
		{"gatherv", "2 recv counts and 1 displacements", m.Gatherv(&silent{}, b(8), b(8), []int{8, 0}, []int{0}, 0)},
		{"gatherv", "recv block of rank 0 (displacement 4, 8 bytes) does not fit in the 8-byte recv buffer", m.Gatherv(&silent{}, b(8), b(8), []int{8}, []int{4}, 0)},
		{"scatter", "root -1 is not a rank", m.Scatter(&silent{}, b(8), b(8), -1)},
		{"scatterv", "send count of rank 0 is -1 bytes: negative", m.Scatterv(&silent{}, b(8), []int{-1}, []int{0}, nil, 0)},
		{"allgather", "recv holds 4 bytes, want 8", m.Allgather(&silent{}, b(8), b(4))},
		{"allgatherv", "send holds 8 bytes, want 4", m.Allgatherv(&silent{}, b(8), b(8), []int{4}, []int{0})},
		{"alltoall", "recv holds 0 bytes, want 8", m.Alltoall(&silent{}, b(8), nil)},
		{"alltoallv", "rank 0 sends itself 8 bytes but expects 4", m.Alltoallv(&silent{}, b(8), []int{8}, []int{0}, b(8), []int{4}, []int{0})},
		{"alltoallw", "rank 0 sends itself 8 bytes but expects 4", m.Alltoallw(&silent{}, [][]byte{b(8)}, [][]byte{b(4)})},
		{"alltoallw", "2 send blocks and 1 receive blocks", m.Alltoallw(&silent{}, [][]byte{b(8), nil}, [][]byte{b(8)})},
		{"neighbor_alltoallw", "1 send blocks for 2 destinations", m.NeighborAlltoallw(&silent{}, coll.Neighbors{Sources: []int{0, 0}, Dests: []int{0, 0}}, [][]byte{b(8)}, [][]byte{b(8), b(8)})},
		{"reduce_scatter", "send holds 16 bytes, want 8", m.ReduceScatter(&silent{}, b(16), b(8), []int{8}, sum)},
		{"reduce_scatter_block", "recv holds 8 bytes, want 16", m.ReduceScatterBlock(&silent{}, b(16), b(8), sum)},
		{"scan", "recv holds 0 bytes, want 8", m.Scan(&silent{}, b(8), nil, sum)},
		{"exscan", "4 bytes are not a whole number", m.Exscan(&silent{}, b(4), nil, sum)},
	}
	for _, tc := range cases {
		// The caller names the component, the collective and the
		// communicator: the component's error begins with the cause.
		if tc.err == nil {
			t.Errorf("%s: no error, want %q", tc.coll, tc.want)
		} else if !strings.HasPrefix(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q...", tc.coll, tc.err, tc.want)
		}
		// A block to itself that disagrees is counts that disagree:
		// pmpi reports MPI_ERR_TRUNCATE, as for a message too long.
		if strings.Contains(tc.want, "sends itself") && !errors.Is(tc.err, coll.ErrTooLong) {
			t.Errorf("%s: error %q is not of the class of a message too long", tc.coll, tc.err)
		}
	}
}

// TestNeighborAlltoallw: on a periodic grid of one rank, the block sent
// down arrives from above and the block sent up from below.
func TestNeighborAlltoallw(t *testing.T) {
	nb := coll.Neighbors{Sources: []int{0, 0}, Dests: []int{0, 0}, Cart: true}
	down, up := fill(1, 8), fill(2, 24)
	recv := [][]byte{filled(24), filled(8)}
	c := &silent{}
	if err := newModule().NeighborAlltoallw(c, nb, [][]byte{down, up}, recv); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(recv[0], up) || !bytes.Equal(recv[1], down) {
		t.Errorf("from below %v, from above %v; want %v and %v", recv[0], recv[1], up, down)
	}
	if n := c.msgs.Load(); n != 0 {
		t.Errorf("%d messages", n)
	}
}

// TestCommQuery checks that self serves every collective of a one-rank
// communicator, at the priority it is given, and nothing of a larger one.
func TestCommQuery(t *testing.T) {
	for n := 1; n <= 4; n++ {
		c := colltest.NewWorld(n).Comm(0)
		prio, mod, err := newComponent().CommQuery(c, coll.Query{Priority: 75})
		if err != nil {
			t.Fatal(err)
		}
		if (mod != nil) != (n == 1) || (n == 1 && prio != 75) {
			t.Errorf("n=%d: CommQuery = %d, %v", n, prio, mod)
		}
		table, err := coll.Build(c, []coll.Candidate{{Name: "self", Component: newComponent(), Priority: 75}}, coll.Host{})
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if n == 1 {
			want = "self"
		}
		for _, name := range coll.Collectives {
			if p := table.Provider(name); p != want {
				t.Errorf("n=%d: %s is served by %q, want %q", n, name, p, want)
			}
		}
	}
}

func TestRegistered(t *testing.T) {
	for _, reg := range mca.DefaultRegistry().Components(coll.Name) {
		if reg.Name == "self" {
			if reg.DefaultPriority != 75 || reg.Version != (mca.Version{Major: 1}) {
				t.Errorf("registered with priority %d, version %v; want 75, 1.0.0", reg.DefaultPriority, reg.Version)
			}
			return
		}
	}
	t.Fatal("coll self is not registered")
}
