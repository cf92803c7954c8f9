package pmpi

import (
	"math"
	"slices"
)

// DimsCreate fills the zero entries of dims so that the product of all
// entries is nnodes, as balanced as possible: the filled entries, in
// non-increasing order, have the least spread between the largest and
// the smallest (then the largest smallest entry, and so on: see
// balanced). Positive entries stay as given; their product must divide
// nnodes.
func (*realAPI) DimsCreate(nnodes int, dims []int) error {
	if nnodes <= 0 {
		return errorf(ClassArg, nil, "dims create: nnodes is %d (want > 0)", nnodes)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return errorf(ClassDims, nil, "dims create: dims[%d] is %d (want 0 to fill, or a positive size)", i, d)
		case d == 0:
			free++
		default:
			fixed *= d
		}
	}
	if nnodes%fixed != 0 {
		return errorf(ClassDims, nil, "dims create: the given dims %v multiply to %d, which does not divide nnodes %d", dims, fixed, nnodes)
	}
	if free == 0 {
		if fixed != nnodes {
			return errorf(ClassDims, nil, "dims create: the given dims %v multiply to %d (want nnodes, %d, or zeros to fill)", dims, fixed, nnodes)
		}
		return nil
	}
	rest := nnodes / fixed
	fill := balanced(rest, free)
	for i := range dims {
		if dims[i] == 0 {
			dims[i], fill = fill[0], fill[1:]
		}
	}
	return nil
}

// balanced returns the k factors of n, in non-increasing order, that are
// as close to each other as MPI asks: the least spread between the
// largest and the smallest; among those, the one whose smallest factor
// is the largest, then its second smallest, and so on. This is the
// balance of Traeff and Luebbe's "Specification Guideline Violations by
// MPI_Dims_create" (EuroMPI'15), and MPICH's choice: 5040 in 3-D is
// 21x16x15, not 20x18x14, which has the same spread.
func balanced(n, k int) []int {
	if k == 1 {
		return []int{n}
	}
	divs := divisors(n)
	var best []int
	spread := 0
	cur := make([]int, 0, k)
	// walk chooses the next factor, at most limit, of the left factors
	// whose product is rest: the largest of them, so its left-th power
	// is at least rest. Factors only shrink, so once cur[0]-d exceeds the
	// best spread no smaller d can do better.
	var walk func(rest, left, limit int)
	walk = func(rest, left, limit int) {
		if left == 1 {
			if rest > limit {
				return
			}
			cand := append(cur, rest)
			s := cand[0] - rest
			if best == nil || s < spread || (s == spread && higherEnds(cand, best)) {
				best, spread = append(best[:0], cand...), s
			}
			return
		}
		for i := len(divs) - 1; i >= 0; i-- {
			d := divs[i]
			if d > limit || rest%d != 0 {
				continue
			}
			if pow(d, left) < rest || (best != nil && cur[0]-d > spread) {
				return
			}
			cur = append(cur, d)
			walk(rest/d, left-1, d)
			cur = cur[:len(cur)-1]
		}
	}
	// The first factor from the smallest it can be (n's k-th root) up:
	// the rest are at most the (k-1)-th root of what it leaves, so the
	// spread is at least their difference, which grows with it.
	for _, d := range divs {
		if pow(d, k) < n {
			continue
		}
		if best != nil && float64(d)-math.Pow(float64(n/d), 1/float64(k-1)) > float64(spread)+1 {
			break
		}
		cur = append(cur[:0], d)
		walk(n/d, k-1, d)
	}
	return best
}

// higherEnds reports whether a's smallest factor is larger than b's, or
// equal with a's second smallest larger, and so on.
func higherEnds(a, b []int) bool {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// divisors returns n's divisors in increasing order.
func divisors(n int) []int {
	var low, high []int
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			low = append(low, d)
			if d*d != n {
				high = append(high, n/d)
			}
		}
	}
	slices.Reverse(high)
	return append(low, high...)
}

// pow is d to the k, capped so that it cannot overflow.
func pow(d, k int) int {
	p := 1
	for range k {
		if p > (1<<62)/d {
			return 1 << 62
		}
		p *= d
	}
	return p
}

// hostOrder is the order in which reorder places the ranks of a
// communicator, given the host of each: the hosts in the order of their
// lowest rank, each host's ranks by rank. Laid onto a grid in row-major
// order, a host's ranks fill consecutive rows (or blocks of a row), so
// that most grid neighbours share a host. With one host it is the
// identity.
func hostOrder(hosts []string) []int {
	first := map[string]int{}
	for r, h := range hosts {
		if _, ok := first[h]; !ok {
			first[h] = r
		}
	}
	order := make([]int, len(hosts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return first[hosts[a]] - first[hosts[b]] })
	return order
}

// placement is the ranks of comm (as comm ranks) that take a grid's
// nnodes places, in order: comm's first nnodes when reorder is
// false, the first nnodes of hostOrder when it is true.
func (l *library) placement(comm *Comm, nnodes int, reorder bool) []int {
	var order []int
	if reorder {
		hosts := make([]string, comm.Size())
		for r, w := range comm.group {
			hosts[r] = l.hostIDs[w]
		}
		order = hostOrder(hosts)
	} else {
		order = make([]int, comm.Size())
		for i := range order {
			order[i] = i
		}
	}
	return order[:nnodes]
}
