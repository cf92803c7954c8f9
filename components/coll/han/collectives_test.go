package han

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// Sizes: bytes of bcast's buffer and of a rank's block, elements of the
// reductions' vectors. The last of each, a few hundred KiB a call, runs
// on 6 and 9 ranks with the sends that never block only, to keep the
// race detector's run short: the rendezvous pass checks the order of the
// messages, which the size does not change.
var (
	byteSizes  = []int{0, 1, 1000, 300 << 10}
	blockSizes = []int{0, 1, 1000, 32 << 10}
	elemSizes  = []int{0, 1, 100, 2000, 16 << 10}
)

// upTo is sizes without the last unless big.
func upTo(sizes []int, big bool) []int {
	if big {
		return sizes
	}
	return sizes[:len(sizes)-1]
}

// TestCollectives runs every collective han provides on 2 to 9 ranks in
// every layout, against the serial result, once with sends that never
// block and once with sends that wait for their receives.
func TestCollectives(t *testing.T) {
	for _, n := range sizes {
		for i, lay := range layouts(n) {
			// Sends that wait for their receive change the order of the
			// waits, not what a layout does: one layout of each size is
			// enough to run both ways.
			modes := []bool{false}
			if i == 0 {
				modes = append(modes, true)
			}
			for _, rv := range modes {
				t.Run(fmt.Sprintf("n%d/%s/rendezvous=%v", n, lay.name, rv), func(t *testing.T) {
					t.Parallel()
					w := newWorld(t, lay, autoConfig(), rv)
					for _, name := range []string{"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather"} {
						if p := w.tables[0].Provider(name); p != "han" {
							t.Fatalf("%s served by %q, want han", name, p)
						}
					}
					// The large sizes on one layout whose nodes hold
					// consecutive ranks and one whose nodes do not.
					big := !rv && (n == 6 || n == 9) && (lay.name == "blocks2" || lay.name == "roundrobin2")
					checkAll(t, w, big)
				})
			}
		}
	}
}

// checkAll makes every call of every collective han provides on w.
func checkAll(t *testing.T, w *world, big bool) {
	t.Helper()
	n := w.n
	var entered atomic.Int64
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		entered.Add(1)
		if err := tab.Barrier(c); err != nil {
			return err
		}
		if got := entered.Load(); got != int64(n) {
			return fmt.Errorf("rank %d left the barrier when %d of %d ranks had entered", c.Rank(), got, n)
		}
		return nil
	})
	seed := 0
	for _, size := range upTo(byteSizes, big) {
		for _, root := range colltest.Roots(n) {
			seed++
			checkBcast(t, w, size, root, seed)
		}
	}
	for _, op := range testOps {
		for _, elems := range upTo(elemSizes, big) {
			for _, root := range colltest.Roots(n) {
				seed++
				checkReduce(t, w, op, elems, root, seed)
			}
			seed++
			checkAllreduce(t, w, op, elems, seed)
		}
	}
	for _, bs := range upTo(blockSizes, big) {
		for _, root := range colltest.Roots(n) {
			seed++
			checkGather(t, w, bs, root, seed)
			checkScatter(t, w, bs, root, seed)
		}
		seed++
		checkAllgather(t, w, bs, seed)
	}
}

func checkBcast(t *testing.T, w *world, size, root, seed int) {
	t.Helper()
	want := colltest.Data(seed, root, size)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		buf := make([]byte, size)
		if c.Rank() == root {
			copy(buf, want)
		}
		if err := tab.Bcast(c, buf, root); err != nil {
			return err
		}
		return colltest.ExpectEqual(buf, want, fmt.Sprintf("bcast of %d bytes from %d", size, root), c.Rank())
	})
}

func checkReduce(t *testing.T, w *world, op colltest.OpCase, elems, root, seed int) {
	t.Helper()
	in := colltest.Inputs(w.n, func(r int) []byte { return op.Input(seed, r, elems) })
	want := colltest.Fold(op.Op, in)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		var recv []byte
		if c.Rank() == root {
			recv = make([]byte, len(want))
		}
		send := bytes.Clone(in[c.Rank()])
		if elems == 0 {
			send = nil // a zero count may come with no buffer at all
		}
		if err := tab.Reduce(c, send, recv, op.Op, root); err != nil {
			return err
		}
		if !bytes.Equal(send, in[c.Rank()]) {
			return fmt.Errorf("reduce wrote the send buffer of rank %d", c.Rank())
		}
		if c.Rank() != root {
			return nil
		}
		return colltest.ExpectEqual(recv, want, fmt.Sprintf("reduce %s of %d elements to %d", op.Name, elems, root), c.Rank())
	})
}

func checkAllreduce(t *testing.T, w *world, op colltest.OpCase, elems, seed int) {
	t.Helper()
	in := colltest.Inputs(w.n, func(r int) []byte { return op.Input(seed, r, elems) })
	want := colltest.Fold(op.Op, in)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		recv := make([]byte, len(want))
		send := bytes.Clone(in[c.Rank()])
		if err := tab.Allreduce(c, send, recv, op.Op); err != nil {
			return err
		}
		if !bytes.Equal(send, in[c.Rank()]) {
			return fmt.Errorf("allreduce wrote the send buffer of rank %d", c.Rank())
		}
		return colltest.ExpectEqual(recv, want, fmt.Sprintf("allreduce %s of %d elements", op.Name, elems), c.Rank())
	})
}

func checkGather(t *testing.T, w *world, bs, root, seed int) {
	t.Helper()
	in := colltest.Inputs(w.n, func(r int) []byte { return colltest.Data(seed, r, bs) })
	want := bytes.Join(in, nil)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		var recv []byte
		if c.Rank() == root {
			recv = make([]byte, len(want))
		}
		if err := tab.Gather(c, in[c.Rank()], recv, root); err != nil {
			return err
		}
		if c.Rank() != root {
			return nil
		}
		return colltest.ExpectEqual(recv, want, fmt.Sprintf("gather of %d-byte blocks to %d", bs, root), c.Rank())
	})
}

func checkScatter(t *testing.T, w *world, bs, root, seed int) {
	t.Helper()
	in := colltest.Inputs(w.n, func(r int) []byte { return colltest.Data(seed, r, bs) })
	all := bytes.Join(in, nil)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		var send []byte
		if c.Rank() == root {
			send = all
		}
		recv := make([]byte, bs)
		if err := tab.Scatter(c, send, recv, root); err != nil {
			return err
		}
		return colltest.ExpectEqual(recv, in[c.Rank()], fmt.Sprintf("scatter of %d-byte blocks from %d", bs, root), c.Rank())
	})
}

func checkAllgather(t *testing.T, w *world, bs, seed int) {
	t.Helper()
	in := colltest.Inputs(w.n, func(r int) []byte { return colltest.Data(seed, r, bs) })
	want := bytes.Join(in, nil)
	w.run(t, func(tab *coll.Table, c coll.Comm) error {
		recv := make([]byte, len(want))
		if err := tab.Allgather(c, in[c.Rank()], recv); err != nil {
			return err
		}
		return colltest.ExpectEqual(recv, want, fmt.Sprintf("allgather of %d-byte blocks", bs), c.Rank())
	})
}
