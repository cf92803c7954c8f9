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
//     is no member and does not call it);
//   - cart: a 2x2 grid, world rank 2 passing dims 2x3 (ErrDims);
//   - cartdiffer: a grid of the 4 ranks, world rank 1 passing dims 4,
//     the others 2x2: valid everywhere, the same group, other grids;
//   - cartsub: of the 2x2 grid, world rank 2 passing remain of length 1;
//   - cartsubdiffer: of the 2x2 grid, world rank 2 passing remain
//     [false true], the others [true false];
//   - graph: a ring, world rank 2 passing an edge to rank 4 (ErrRank);
//   - graphdiffer: a graph of 4 nodes of degree 2, world rank 3 passing
//     other edges than the others' ring;
//   - distgraph: a ring, each rank giving its edge to the next, world
//     rank 2 a destination 7 (ErrRank);
//   - distweights: rank 0, 1 and 2 each giving its edge to the next
//     rank, with weights but at world rank 2, which passes nil; rank 3
//     giving no edges with empty weights (MPI_WEIGHTS_EMPTY: weighted);
//   - adjacent: a ring, each rank naming its neighbours, world rank 2
//     with weights for its sources only (ErrArg);
//   - adjweights: a ring, each rank naming its neighbours with weights
//     but world ranks 1 and 3, which pass nil (unweighted);
//   - intercreate: on the intercommunicator of the even and the odd
//     ranks, each group passing itself, world rank 2 a group holding
//     world rank 1, of the other group (ErrGroup);
//   - intercreatediffer: the same, world rank 2 passing its group less
//     world rank 0;
//   - merge: the intercommunicator of the even and the odd ranks merged,
//     world rank 2 passing high true, the others false;
//   - intercommleader: the intercommunicator of the even and the odd
//     ranks made, world rank 2 passing local leader 5 (ErrRank), the
//     others 0;
//   - intercommleaderdiffer: the same, world ranks 2 and 3 passing local
//     leader 1, in range: both groups' leaders differ;
//   - creategroupbad: on the communicator of world ranks 0, 1 and 2,
//     those make a communicator of themselves, world rank 2 listing world
//     rank 3 too (ErrGroup).
//
// Every rank that calls it must return an error, which it prints as
// "failed commdisagree KIND rank R: ..." for the test to read; none may
// wait for the others. The error is ErrArg, but at the rank at fault of
// the kinds whose error class is named above. Each rank then makes a
// communicator of the same kind with arguments that agree, and reduces
// over it.
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
	inter := kind == "intersplit" || kind == "intercreate" || kind == "intercreatediffer" || kind == "merge"
	var ic, grid, sub mpi.Comm
	// Halves for IntercommCreate, whose leaders are world ranks 0 and 1.
	leaders := kind == "intercommleader" || kind == "intercommleaderdiffer"
	if leaders {
		local, err := w.Split(me%2, me)
		x.ok(err, "split into halves")
		x.ok(local.SetErrorHandler(mpi.ErrorsReturn), "set the half's handler")
		sub = local
		defer func() { x.ok(local.Free(), "free the half") }()
	}
	if kind == "creategroupbad" {
		color := 0
		if me == 3 {
			color = mpi.Undefined
		}
		sub, err = w.Split(color, me)
		x.ok(err, "split off world rank 3")
		if me == 3 {
			return // no member: it does not call
		}
		x.ok(sub.SetErrorHandler(mpi.ErrorsReturn), "set the handler")
		defer func() { x.ok(sub.Free(), "free") }()
	}
	if inter {
		half, err := w.Split(me%2, me)
		x.ok(err, "split into halves")
		ic, err = mpi.IntercommCreate(half, 0, w, 1-me%2, 9)
		x.ok(err, "intercomm create")
		x.ok(ic.SetErrorHandler(mpi.ErrorsReturn), "set the intercommunicator's handler")
		defer func() { x.ok(errors.Join(ic.Free(), half.Free()), "free the halves") }()
	}
	if kind == "cartsub" || kind == "cartsubdiffer" {
		grid, err = mpi.CartCreate(w, []int{2, 2}, []bool{false, false}, false)
		x.ok(err, "2x2 grid")
		x.ok(grid.SetErrorHandler(mpi.ErrorsReturn), "set the grid's handler")
		defer func() { x.ok(grid.Free(), "free the grid") }()
	}
	// A ring: each rank's neighbours are the ranks before and after it.
	prev, next := (me+size-1)%size, (me+1)%size
	half := []int{me % 2, me%2 + 2} // this rank's group of the intercommunicator
	called := true
	var class error = mpi.ErrArg // what the rank returns
	faulty := func(c error) {
		if me == 2 {
			class = c
		}
	}
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
	case "cart":
		dims := []int{2, 2}
		if me == 2 {
			dims = []int{2, 3}
		}
		faulty(mpi.ErrDims)
		c, err = mpi.CartCreate(w, dims, []bool{false, true}, false)
	case "cartdiffer":
		// Valid at every rank, and a grid of the same 4 ranks.
		dims := []int{2, 2}
		if me == 1 {
			dims = []int{4}
		}
		c, err = mpi.CartCreate(w, dims, make([]bool, len(dims)), false)
	case "cartsub":
		remain := []bool{true, false}
		if me == 2 {
			remain = []bool{true}
		}
		c, err = grid.CartSub(remain)
	case "cartsubdiffer":
		remain := []bool{true, false}
		if me == 2 {
			remain = []bool{false, true}
		}
		c, err = grid.CartSub(remain)
	case "graph":
		edges := []int{1, 3, 0, 2, 1, 3, 2, 0}
		if me == 2 {
			edges[7] = 4
		}
		faulty(mpi.ErrRank)
		c, err = mpi.GraphCreate(w, []int{2, 4, 6, 8}, edges, false)
	case "graphdiffer":
		edges := []int{1, 3, 0, 2, 1, 3, 2, 0}
		if me == 3 {
			edges = []int{1, 2, 0, 3, 0, 3, 1, 2}
		}
		c, err = mpi.GraphCreate(w, []int{2, 4, 6, 8}, edges, false)
	case "distgraph":
		dest := next
		if me == 2 {
			dest = 7
		}
		faulty(mpi.ErrRank)
		c, err = mpi.DistGraphCreate(w, []int{me}, []int{1}, []int{dest}, nil, false)
	case "distweights":
		weights := []int{1}
		if me == 2 {
			weights = nil
		}
		c, err = distWeighted(w, weights)
	case "adjacent":
		var sw []int
		if me == 2 {
			sw = []int{1}
		}
		faulty(mpi.ErrArg)
		c, err = mpi.DistGraphCreateAdjacent(w, []int{prev}, sw, []int{next}, nil, false)
	case "adjweights":
		sw, dw := []int{1}, []int{2}
		if me%2 == 1 {
			sw, dw = nil, nil
		}
		c, err = mpi.DistGraphCreateAdjacent(w, []int{prev}, sw, []int{next}, dw, false)
	case "intercreate":
		g := incl(half...)
		if me == 2 {
			g = incl(1, 2)
		}
		faulty(mpi.ErrGroup)
		c, err = ic.Create(g)
	case "intercreatediffer":
		g := incl(half...)
		if me == 2 {
			g = incl(2)
		}
		c, err = ic.Create(g)
	case "merge":
		c, err = ic.Merge(me == 2)
	case "intercommleader":
		leader := 0
		if me == 2 {
			leader = 5
		}
		faulty(mpi.ErrRank)
		c, err = mpi.IntercommCreate(sub, leader, w, 1-me%2, 9)
	case "intercommleaderdiffer":
		leader := 0
		if me >= 2 {
			leader = 1
		}
		c, err = mpi.IntercommCreate(sub, leader, w, 1-me%2, 9)
	case "creategroupbad":
		g := incl(0, 1, 2)
		if me == 2 {
			g = incl(0, 1, 2, 3)
		}
		faulty(mpi.ErrGroup)
		c, err = sub.CreateGroup(g, 5)
	default:
		x.fatalf("commdisagree: unknown kind %q", kind)
	}
	if called {
		x.checks++
		switch {
		case err == nil:
			x.errorf("commdisagree %s: no error (null communicator %v)", kind, c.IsNull())
		case errors.Is(err, class):
			fmt.Printf("failed commdisagree %s rank %d: %v\n", kind, me, err)
		default:
			x.errorf("commdisagree %s: error %q, want %v", kind, err, class)
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
	case "cart", "cartdiffer":
		c, err = mpi.CartCreate(w, []int{2, 2}, []bool{false, true}, false)
		members = []int{0, 1, 2, 3}
	case "cartsub", "cartsubdiffer":
		// The first dimension remains: the ranks of this rank's column.
		c, err = grid.CartSub([]bool{true, false})
		members = []int{me % 2, me%2 + 2}
	case "graph", "graphdiffer":
		c, err = mpi.GraphCreate(w, []int{2, 4, 6, 8}, []int{1, 3, 0, 2, 1, 3, 2, 0}, false)
		members = []int{0, 1, 2, 3}
	case "distgraph":
		c, err = mpi.DistGraphCreate(w, []int{me}, []int{1}, []int{next}, nil, false)
		members = []int{0, 1, 2, 3}
	case "distweights":
		c, err = distWeighted(w, []int{1})
		members = []int{0, 1, 2, 3}
		if err == nil {
			// Rank 3's empty weights are weights: the graph is weighted.
			_, _, weighted, err := c.DistGraphNeighborsCount()
			x.ok(err, "neighbours count")
			equal(x, weighted, true, "the graph that agrees is weighted")
		}
	case "adjacent":
		c, err = mpi.DistGraphCreateAdjacent(w, []int{prev}, nil, []int{next}, nil, false)
		members = []int{0, 1, 2, 3}
	case "adjweights":
		c, err = mpi.DistGraphCreateAdjacent(w, []int{prev}, []int{1}, []int{next}, []int{2}, false)
		members = []int{0, 1, 2, 3}
	case "intercreate", "intercreatediffer":
		c, err = ic.Create(incl(half...))
		members = []int{1 - me%2, 3 - me%2} // the remote group's
	case "merge":
		c, err = ic.Merge(me%2 == 1)
		members = []int{0, 1, 2, 3}
	case "intercommleader", "intercommleaderdiffer":
		// The same tag: a message left over from the failed call would
		// meet this one.
		c, err = mpi.IntercommCreate(sub, 0, w, 1-me%2, 9)
		members = []int{1 - me%2, 3 - me%2} // the remote group's
	case "creategroupbad":
		c, err = sub.CreateGroup(incl(0, 1, 2), 5)
		members = []int{0, 1, 2}
	}
	x.ok(err, "%s that agrees", kind)
	if !inter && !leaders && !slices.Contains(members, me) {
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

// distWeighted is DistGraphCreate of the ranks 0, 1 and 2 of w each
// giving its edge to the next rank with weights (this rank's, which
// may be nil), and rank 3 giving no edges, with empty weights
// (MPI_WEIGHTS_EMPTY).
func distWeighted(w mpi.Comm, weights []int) (mpi.Comm, error) {
	me := w.Rank()
	if me == 3 {
		return mpi.DistGraphCreate(w, nil, nil, nil, []int{}, false)
	}
	return mpi.DistGraphCreate(w, []int{me}, []int{1}, []int{me + 1}, weights, false)
}
