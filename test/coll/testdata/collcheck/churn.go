package main

import (
	"bufio"
	"os"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// churn makes and frees 2000 communicators (Dups of world), an
// Allreduce on every 100th, then holds 200 at once with an Allreduce on
// three of them, checking every result and how many coll sm segments the
// rank has mapped: the idle communicators must map none, and the freed
// ones be bounded by coll sm's pool, whatever the number made.
func churn(x *checker, w mpi.Comm) {
	n := int64(w.Size())
	want := n * (n + 1) / 2
	sum := func(c mpi.Comm, what string, i int) {
		recv := make([]int64, 1)
		x.ok(mpi.Allreduce([]int64{int64(x.rank + 1)}, recv, mpi.Sum, c), "allreduce on %s %d", what, i)
		equal(x, recv[0], want, "allreduce on %s %d", what, i)
	}
	base := segments(x)
	most := base
	for i := range 2000 {
		d, err := w.Dup()
		x.ok(err, "dup %d", i)
		if i%100 == 0 {
			sum(d, "dup", i)
		}
		x.ok(d.Free(), "free %d", i)
		most = max(most, segments(x))
	}
	// coll sm keeps 4 freed segments at most, and a Dup whose first call
	// finds one reuses it: at most one more is mapped at a time.
	if most > base+5 {
		x.errorf("%d coll segments mapped at most while making and freeing 2000 communicators, from %d", most, base)
	}
	held := make([]mpi.Comm, 200)
	for i := range held {
		var err error
		held[i], err = w.Dup()
		x.ok(err, "held dup %d", i)
	}
	if got := segments(x); got > base+5 {
		x.errorf("%d coll segments mapped with 200 idle communicators, from %d", got, base)
	}
	for _, i := range []int{0, 99, 199} {
		sum(held[i], "held dup", i)
	}
	if got := segments(x); got > base+5+3 {
		x.errorf("%d coll segments mapped after calls on 3 of 200 communicators, from %d", got, base)
	}
	for i, d := range held {
		x.ok(d.Free(), "free held %d", i)
	}
	sum(w, "world", 0)
}

// segments counts the coll sm segments this process has mapped.
func segments(x *checker) int {
	f, err := os.Open("/proc/self/maps")
	x.ok(err, "open /proc/self/maps")
	defer f.Close()
	n := 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.Contains(s.Text(), ".coll") && strings.Contains(s.Text(), "gompi.") {
			n++
		}
	}
	return n
}
