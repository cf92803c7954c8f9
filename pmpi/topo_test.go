package pmpi

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDimsCreate(t *testing.T) {
	for _, c := range []struct {
		nnodes int
		dims   []int
		want   []int
	}{
		{6, []int{0, 0}, []int{3, 2}},
		{12, []int{0, 0}, []int{4, 3}},
		{16, []int{0, 0, 0}, []int{4, 2, 2}},
		{24, []int{0, 0, 0}, []int{4, 3, 2}},
		{5040, []int{0, 0, 0}, []int{21, 16, 15}}, // not 20x18x14, of the same spread
		{7488, []int{0, 0, 0}, []int{26, 18, 16}}, // not 24x24x13, of a larger one
		{36, []int{0, 0}, []int{6, 6}},
		{7, []int{0, 0}, []int{7, 1}},
		{1, []int{0, 0}, []int{1, 1}},
		{12, []int{0, 3}, []int{4, 3}},
		{12, []int{2, 0, 0}, []int{2, 3, 2}},
		{8, []int{0, 1, 0}, []int{4, 1, 2}},
		{6, []int{2, 3}, []int{2, 3}},
		{1, nil, nil},
	} {
		got := slices.Clone(c.dims)
		if err := theAPI.DimsCreate(c.nnodes, got); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", c.nnodes, c.dims, got, err, c.want)
		}
	}
}

// TestDimsCreateMostBalanced checks the filled dims against every
// non-increasing factorisation: none has a smaller spread between its
// largest and smallest entries, or the same spread and a larger smallest
// entry (then second smallest, and so on).
func TestDimsCreateMostBalanced(t *testing.T) {
	var all func(n, k, limit int) [][]int
	all = func(n, k, limit int) [][]int {
		if k == 0 {
			if n == 1 {
				return [][]int{nil}
			}
			return nil
		}
		var out [][]int
		for d := 1; d <= limit; d++ {
			if n%d == 0 {
				for _, rest := range all(n/d, k-1, d) {
					out = append(out, append([]int{d}, rest...))
				}
			}
		}
		return out
	}
	order := func(a, b []int) int {
		if c := (a[0] - a[len(a)-1]) - (b[0] - b[len(b)-1]); c != 0 {
			return c
		}
		for i := len(a) - 1; i >= 0; i-- {
			if a[i] != b[i] {
				return b[i] - a[i]
			}
		}
		return 0
	}
	for _, n := range append(seqTo(200), 720, 5040, 6240, 7488, 10800, 5616) {
		for k := 1; k <= 4; k++ {
			got := make([]int, k)
			if err := theAPI.DimsCreate(n, got); err != nil {
				t.Fatalf("DimsCreate(%d, %d zeros): %v", n, k, err)
			}
			best := slices.MinFunc(all(n, k, n), order)
			if !slices.Equal(got, best) {
				t.Errorf("DimsCreate(%d, %d zeros) = %v; want %v", n, k, got, best)
			}
		}
	}
}

// seqTo is 1 to n.
func seqTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

func TestDimsCreateErrors(t *testing.T) {
	for _, c := range []struct {
		nnodes int
		dims   []int
		class  error
		says   string
	}{
		{0, []int{0}, ErrArg, "nnodes is 0"},
		{6, []int{-1, 0}, ErrDims, "dims[0] is -1"},
		{10, []int{3, 0}, ErrDims, "does not divide nnodes 10"},
		{6, []int{2, 2}, ErrDims, "multiply to 4"},
	} {
		err := theAPI.DimsCreate(c.nnodes, slices.Clone(c.dims))
		if !errors.Is(err, c.class) || err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("DimsCreate(%d, %v) = %v; want %v saying %q", c.nnodes, c.dims, err, c.class, c.says)
		}
	}
}

func TestHostOrder(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		want  []int
	}{
		{[]string{"a", "a", "a"}, []int{0, 1, 2}},
		{[]string{"a", "b", "a", "b"}, []int{0, 2, 1, 3}},
		{[]string{"b", "a", "b", "c", "a", "c"}, []int{0, 2, 1, 4, 3, 5}},
	} {
		if got := hostOrder(c.hosts); !slices.Equal(got, c.want) {
			t.Errorf("hostOrder(%q) = %v; want %v", c.hosts, got, c.want)
		}
	}
}

// TestReorderKeepsHostsTogether lays ranks placed round-robin on two
// hosts onto a 2x4 grid: with the host order each row is one host, so
// every neighbour along a row shares a host; in rank order none does.
func TestReorderKeepsHostsTogether(t *testing.T) {
	hosts := []string{"h0", "h1", "h0", "h1", "h0", "h1", "h0", "h1"}
	g := &cartTopo{dims: []int{2, 4}, periods: []bool{false, false}}
	sameHost := func(order []int) int {
		n := 0
		for pos := range order {
			if c := g.coords(pos); c[1]+1 < g.dims[1] {
				right := g.rank([]int{c[0], c[1] + 1})
				if hosts[order[pos]] == hosts[order[right]] {
					n++
				}
			}
		}
		return n
	}
	if got := sameHost(hostOrder(hosts)); got != 6 {
		t.Errorf("with the host order, %d of 6 row neighbours share a host", got)
	}
	if got := sameHost([]int{0, 1, 2, 3, 4, 5, 6, 7}); got != 0 {
		t.Errorf("in rank order, %d of 6 row neighbours share a host; want 0", got)
	}
}

func TestCartCoordsRank(t *testing.T) {
	g := &cartTopo{dims: []int{2, 3, 4}, periods: []bool{true, false, true}}
	for r := range 24 {
		c := g.coords(r)
		if g.rank(c) != r {
			t.Errorf("rank(coords(%d) = %v) = %d", r, c, g.rank(c))
		}
	}
	if c := g.coords(23); !slices.Equal(c, []int{1, 2, 3}) {
		t.Errorf("coords(23) = %v; want [1 2 3] (row-major)", c)
	}
	if x, ok := g.wrap(0, -3); !ok || x != 1 {
		t.Errorf("wrap(0, -3) = %d, %v; want 1 in a periodic dimension of 2", x, ok)
	}
	if _, ok := g.wrap(1, 3); ok {
		t.Error("wrap(1, 3) succeeded outside a non-periodic dimension of 3")
	}
}

// TestRemainsDiffer: CartSub fails when a rank's remain, in the split's
// record after its color and key, differs from rank 0's, naming the
// first few such ranks; not when every rank passed rank 0's.
func TestRemainsDiffer(t *testing.T) {
	rec := func(remain ...bool) []byte {
		b := colorOf(0, 0, len(remain))
		for _, r := range remain {
			b = append(b, boolByte(r))
		}
		return b
	}
	tf, ft, tt := rec(true, false), rec(false, true), rec(true, true)
	size := colorRecord + 2
	comm := &Comm{}
	for _, c := range []struct {
		recs [][]byte
		want string // "" for no error
	}{
		{[][]byte{tf, tf, tf, tf}, ""},
		{[][]byte{ft, ft, tf, ft}, "rank 2 passed remain [true false] where rank 0 passed [false true] (MPI requires the same remain at every rank)"},
		{[][]byte{tf, ft, tt, tf, ft, ft}, "rank 1 passed remain [false true], rank 2 passed remain [true true], rank 4 passed remain [false true], 1 more rank passed other values where rank 0 passed [true false]"},
	} {
		err := remainsDiffer("cart sub", comm, slices.Concat(c.recs...), size)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("error %v, want none", err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArg)):
			t.Errorf("error %v, want ErrArg saying %q", err, c.want)
		}
	}
	if got := colorsOnly(slices.Concat(tf, ft), size); !slices.Equal(got, slices.Concat(colorOf(0, 0, 0), colorOf(0, 0, 0))) {
		t.Errorf("colorsOnly = %x, want the colors and keys alone", got)
	}
}

// TestMixedWeights: a distributed graph's constructor fails when some
// ranks passed weights and others nil, naming the lowest rank that did
// otherwise than rank 0 and counting the rest; not when all or none did.
func TestMixedWeights(t *testing.T) {
	comm := &Comm{}
	for _, c := range []struct {
		weighted []bool
		want     string // "" for no error
	}{
		{[]bool{true, true, true}, ""},
		{[]bool{false, false}, ""},
		{[]bool{true, true, false, true}, "rank 2 passed nil weights (unweighted) where rank 0 passed weights (MPI requires weights at every rank or nil at every rank)"},
		{[]bool{false, true, false, true, true}, "rank 1 and 2 more ranks passed weights where rank 0 passed nil weights (unweighted)"},
		{[]bool{true, false, false}, "rank 1 and 1 more rank passed nil weights"},
	} {
		err := mixedWeights("dist graph create", comm, c.weighted)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: error %v, want none", c.weighted, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrArg)):
			t.Errorf("%v: error %v, want ErrArg saying %q", c.weighted, err, c.want)
		}
	}
}
