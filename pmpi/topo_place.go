package pmpi

import "slices"

// DimsCreate fills the zero entries of dims so that the product of all
// entries is nnodes, as balanced as possible: the filled entries, in
// non-increasing order, are the sequence whose largest entry is smallest
// (then its second largest, and so on). Positive entries stay as given;
// their product must divide nnodes.
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
	fill, _ := balanced(rest, free, rest, divisors(rest))
	for i := range dims {
		if dims[i] == 0 {
			dims[i], fill = fill[0], fill[1:]
		}
	}
	return nil
}

// balanced returns k factors of n, each at most limit, in non-increasing
// order, smallest in lexicographic order: the first is the smallest
// possible, and so on. ok is false when there are none. divs holds the
// divisors of a multiple of n, in increasing order.
func balanced(n, k, limit int, divs []int) (factors []int, ok bool) {
	switch {
	case k == 0:
		return nil, n == 1
	case k == 1:
		return []int{n}, n <= limit
	}
	for _, d := range divs {
		if d > limit || d > n {
			break
		}
		// The first factor is the largest, so at least n's k-th root.
		if n%d != 0 || pow(d, k) < n {
			continue
		}
		if rest, ok := balanced(n/d, k-1, d, divs); ok {
			return append([]int{d}, rest...), true
		}
	}
	return nil, false
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
