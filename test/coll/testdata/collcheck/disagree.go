package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mpi"
)

// commDisagree runs one communicator creation whose ranks pass arguments
// that disagree (collcheck commdisagree KIND), on 4 ranks:
//
//   - split: world rank 2 passes color -5, the others their parity;
//   - splittype: world rank 1 passes type 42, the others CommTypeShared;
//   - intersplit: on the intercommunicator of the even and the odd ranks,
//     world rank 2 passes color -3, the others 0;
//   - create: world rank 2 passes the group of ranks 0 and 1, the others
//     that of ranks 0, 1 and 2;
//   - creategroup: ranks 0, 1 and 2 make a communicator of themselves,
//     rank 1 listing them as 0, 2, 1 and the others as 0, 1, 2 (rank 3
//     is no member and does not call it).
//
// Every rank that calls it must return an error, which it prints as
// "failed commdisagree KIND rank R: ..." for the test to read; none may
// wait for the others. Each rank then makes a communicator of the same
// kind with arguments that agree, and reduces over it.
func commDisagree(x *checker, w mpi.Comm) {
	if len(x.args) != 1 {
		x.fatalf("usage: collcheck commdisagree KIND")
	}
	kind := x.args[0]
	me, size := w.Rank(), w.Size()
	if size != 4 {
		x.fatalf("commdisagree runs on 4 ranks, not %d", size)
	}
	wg, err := w.Group()
	x.ok(err, "world group")
	incl := func(ranks ...int) mpi.Group {
		g, err := wg.Incl(ranks)
		x.ok(err, "group of %v", ranks)
		return g
	}
	var ic mpi.Comm
	if kind == "intersplit" {
		half, err := w.Split(me%2, me)
		x.ok(err, "split into halves")
		ic, err = mpi.IntercommCreate(half, 0, w, 1-me%2, 9)
		x.ok(err, "intercomm create")
		x.ok(ic.SetErrorHandler(mpi.ErrorsReturn), "set the intercommunicator's handler")
		defer func() { x.ok(errors.Join(ic.Free(), half.Free()), "free the halves") }()
	}
	called := true
	var c mpi.Comm
	switch kind {
	case "split":
		color := me % 2
		if me == 2 {
			color = -5
		}
		c, err = w.Split(color, me)
	case "splittype":
		typ := mpi.CommTypeShared
		if me == 1 {
			typ = 42
		}
		c, err = w.SplitType(typ, me)
	case "intersplit":
		color := 0
		if me == 2 {
			color = -3
		}
		c, err = ic.Split(color, me)
	case "create":
		g := incl(0, 1, 2)
		if me == 2 {
			g = incl(0, 1)
		}
		c, err = w.Create(g)
	case "creategroup":
		g := incl(0, 1, 2)
		if me == 1 {
			g = incl(0, 2, 1)
		}
		called = me != 3
		if called {
			c, err = w.CreateGroup(g, 5)
		}
	default:
		x.fatalf("commdisagree: unknown kind %q", kind)
	}
	if called {
		x.checks++
		switch {
		case err == nil:
			x.errorf("commdisagree %s: no error (null communicator %v)", kind, c.IsNull())
		case errors.Is(err, mpi.ErrArg):
			fmt.Printf("failed commdisagree %s rank %d: %v\n", kind, me, err)
		default:
			x.errorf("commdisagree %s: error %q, want ErrArg", kind, err)
		}
	}

	// The same call with arguments that agree; members of the result
	// reduce their world ranks over it.
	var members []int
	switch kind {
	case "split":
		c, err = w.Split(me%2, me)
		members = []int{me % 2, me%2 + 2}
	case "splittype":
		c, err = w.SplitType(mpi.CommTypeShared, me)
		members = []int{0, 1, 2, 3}
	case "intersplit":
		c, err = ic.Split(0, me)
		members = []int{1 - me%2, 3 - me%2} // the remote group's
	case "create":
		c, err = w.Create(incl(0, 1, 2))
		members = []int{0, 1, 2}
	case "creategroup":
		members = []int{0, 1, 2}
		if me != 3 {
			c, err = w.CreateGroup(incl(members...), 6)
		}
	}
	x.ok(err, "%s that agrees", kind)
	if kind != "intersplit" && !slices.Contains(members, me) {
		equal(x, c.IsNull(), true, "%s that agrees: null outside the group", kind)
		return
	}
	sum := make([]int, 1)
	x.ok(mpi.Allreduce([]int{me}, sum, mpi.Sum, c), "allreduce after the %s that agrees", kind)
	want := 0
	for _, r := range members {
		want += r
	}
	equal(x, sum[0], want, "allreduce after the %s that agrees", kind)
	x.ok(c.Free(), "free")
}
