// Command hancheck runs every collective that coll han provides on the
// world communicator of a job across hosts, with several sizes and roots,
// a commutative and a non-commutative operation, and checks each result
// against the one computed serially here; "rank R ok" ends a rank's
// output when all passed.
//
// "hancheck time N" instead times N rounds of an 8-byte allreduce, a
// 64 KiB bcast, a 1 KiB allgather and a barrier, and rank 0 prints the
// microseconds each takes ("time allreduce 123.4"), for comparing han
// with the flat algorithms (--mca coll_han_<collective>_algorithm next).
package main

import (
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	w := mpi.CommWorld()
	if len(os.Args) > 2 && os.Args[1] == "time" {
		rounds, err := strconv.Atoi(os.Args[2])
		if err != nil {
			log.Fatalf("rounds: %v", err)
		}
		if err := timeColls(w, rounds); err != nil {
			log.Fatalf("rank %d: %v", w.Rank(), err)
		}
	} else if err := check(w); err != nil {
		log.Fatalf("rank %d: %v", w.Rank(), err)
	} else {
		fmt.Printf("rank %d ok\n", w.Rank())
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

// data is rank's input of n elements for a call named seed.
func data(seed, rank, n int) []int32 {
	v := make([]int32, n)
	x := uint32(seed*7919 + rank*104729 + 1)
	for i := range v {
		x = x*1664525 + 1013904223
		v[i] = int32(x >> 20)
	}
	return v
}

// matMul multiplies 2x2 int32 matrices, each 4 elements, in.inout: not
// commutative, so only the rank-order fold gives the serial result.
func matMul(in, inout []int32) {
	for i := 0; i+4 <= len(in); i += 4 {
		a, b := in[i:i+4], inout[i:i+4]
		c := [4]int32{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
		copy(b, c[:])
	}
}

func sum(in, inout []int32) {
	for i := range in {
		inout[i] += in[i]
	}
}

// fold is the serial reduction of every rank's input in rank order.
func fold(f func(in, inout []int32), seed, size, n int) []int32 {
	acc := data(seed, 0, n)
	for r := 1; r < size; r++ {
		next := data(seed, r, n)
		f(acc, next)
		acc = next
	}
	return acc
}

func check(w mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	mat, err := mpi.NewOp(matMul, false, mpi.Record(4))
	if err != nil {
		return err
	}
	ops := []struct {
		name string
		op   mpi.Op
		f    func(in, inout []int32)
	}{{"sum", mpi.Sum, sum}, {"matmul", mat, matMul}}
	if err := mpi.Barrier(w); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	seed := 0
	for _, n := range []int{0, 1, 1000, 64 << 10} { // elements of 4 bytes
		for _, root := range []int{0, size / 2, size - 1} {
			seed++
			buf := make([]int32, n)
			if rank == root {
				buf = data(seed, root, n)
			}
			if err := mpi.Bcast(buf, root, w); err != nil {
				return fmt.Errorf("bcast of %d from %d: %w", n, root, err)
			}
			if !slices.Equal(buf, data(seed, root, n)) {
				return fmt.Errorf("bcast of %d from %d: wrong result", n, root)
			}
			for _, o := range ops {
				m := n / 4 * 4
				recv := make([]int32, m)
				if err := mpi.Reduce(data(seed, rank, m), recv, o.op, root, w); err != nil {
					return fmt.Errorf("reduce %s of %d to %d: %w", o.name, m, root, err)
				}
				if rank == root && !slices.Equal(recv, fold(o.f, seed, size, m)) {
					return fmt.Errorf("reduce %s of %d to %d: wrong result", o.name, m, root)
				}
			}
			block := n / size
			all := make([]int32, 0, block*size)
			for r := range size {
				all = append(all, data(seed, r, block)...)
			}
			recv := make([]int32, block*size)
			if err := mpi.Gather(data(seed, rank, block), recv, root, w); err != nil {
				return fmt.Errorf("gather of %d from each to %d: %w", block, root, err)
			}
			if rank == root && !slices.Equal(recv, all) {
				return fmt.Errorf("gather of %d from each to %d: wrong result", block, root)
			}
			mine := make([]int32, block)
			if err := mpi.Scatter(all, mine, root, w); err != nil {
				return fmt.Errorf("scatter of %d to each from %d: %w", block, root, err)
			}
			if !slices.Equal(mine, data(seed, rank, block)) {
				return fmt.Errorf("scatter of %d to each from %d: wrong result", block, root)
			}
		}
		for _, o := range ops {
			m := n / 4 * 4
			recv := make([]int32, m)
			if err := mpi.Allreduce(data(seed, rank, m), recv, o.op, w); err != nil {
				return fmt.Errorf("allreduce %s of %d: %w", o.name, m, err)
			}
			if !slices.Equal(recv, fold(o.f, seed, size, m)) {
				return fmt.Errorf("allreduce %s of %d: wrong result", o.name, m)
			}
		}
		block := n / size
		recv := make([]int32, block*size)
		if err := mpi.Allgather(data(seed, rank, block), recv, w); err != nil {
			return fmt.Errorf("allgather of %d from each: %w", block, err)
		}
		for r := range size {
			if !slices.Equal(recv[r*block:(r+1)*block], data(seed, r, block)) {
				return fmt.Errorf("allgather of %d from each: rank %d's block is wrong", block, r)
			}
		}
		if err := nonBlocking(w, seed, n); err != nil {
			return err
		}
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
	}
	return nil
}

// nonBlocking starts a bcast, an allreduce, a barrier and an allgather
// of n elements without waiting, which han runs in start order, and
// waits for them in reverse order; then a persistent allreduce, started
// twice before an ibarrier and waited for after it.
func nonBlocking(w mpi.Comm, seed, n int) error {
	rank, size := w.Rank(), w.Size()
	root := size - 1
	buf := make([]int32, n)
	if rank == root {
		buf = data(seed, root, n)
	}
	sumOf := make([]int32, n)
	block := n / size
	all := make([]int32, block*size)
	var reqs []mpi.Request
	for _, start := range []func() (mpi.Request, error){
		func() (mpi.Request, error) { return mpi.Ibcast(buf, root, w) },
		func() (mpi.Request, error) { return mpi.Iallreduce(data(seed, rank, n), sumOf, mpi.Sum, w) },
		func() (mpi.Request, error) { return mpi.Ibarrier(w) },
		func() (mpi.Request, error) { return mpi.Iallgather(data(seed, rank, block), all, w) },
	} {
		r, err := start()
		if err != nil {
			return fmt.Errorf("non-blocking start %d of %d elements: %w", len(reqs), n, err)
		}
		reqs = append(reqs, r)
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		if _, err := reqs[i].Wait(); err != nil {
			return fmt.Errorf("non-blocking call %d of %d elements: %w", i, n, err)
		}
	}
	if !slices.Equal(buf, data(seed, root, n)) {
		return fmt.Errorf("ibcast of %d from %d: wrong result", n, root)
	}
	if !slices.Equal(sumOf, fold(sum, seed, size, n)) {
		return fmt.Errorf("iallreduce sum of %d: wrong result", n)
	}
	for r := range size {
		if !slices.Equal(all[r*block:(r+1)*block], data(seed, r, block)) {
			return fmt.Errorf("iallgather of %d from each: rank %d's block is wrong", block, r)
		}
	}
	return persistent(w, seed, n)
}

func persistent(w mpi.Comm, seed, n int) error {
	sumOf := make([]int32, n)
	p, err := mpi.AllreduceInit(data(seed, w.Rank(), n), sumOf, mpi.Sum, w)
	if err != nil {
		return fmt.Errorf("allreduce init of %d: %w", n, err)
	}
	for round := range 2 {
		clear(sumOf)
		if err := p.Start(); err != nil {
			return fmt.Errorf("allreduce init of %d: start %d: %w", n, round, err)
		}
		b, err := mpi.Ibarrier(w)
		if err != nil {
			return err
		}
		if _, err := b.Wait(); err != nil {
			return err
		}
		if _, err := p.Wait(); err != nil {
			return fmt.Errorf("allreduce init of %d: start %d: %w", n, round, err)
		}
		if !slices.Equal(sumOf, fold(sum, seed, w.Size(), n)) {
			return fmt.Errorf("allreduce init sum of %d, start %d: wrong result", n, round)
		}
	}
	return p.Free()
}

// timeColls times rounds calls of each collective; rank 0 prints the mean.
func timeColls(w mpi.Comm, rounds int) error {
	size := w.Size()
	small, out := []int64{1}, []int64{0}
	big := make([]byte, 64<<10)
	ag, agOut := make([]byte, 1<<10), make([]byte, size<<10)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"allreduce", func() error { return mpi.Allreduce(small, out, mpi.Sum, w) }},
		{"bcast", func() error { return mpi.Bcast(big, 0, w) }},
		{"allgather", func() error { return mpi.Allgather(ag, agOut, w) }},
		{"barrier", func() error { return mpi.Barrier(w) }},
	} {
		for range rounds / 10 { // warm up
			if err := c.f(); err != nil {
				return err
			}
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		start := mpi.Wtime()
		for range rounds {
			if err := c.f(); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		if w.Rank() == 0 {
			fmt.Printf("time %s %.1f\n", c.name, (mpi.Wtime()-start)/float64(rounds)*1e6)
		}
	}
	return nil
}
