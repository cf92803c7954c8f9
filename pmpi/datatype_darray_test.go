package pmpi

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// darrayCase is one process's darray: want is the indices of the global
// array, in the array's order, that its type picks.
type darrayCase struct {
	name     string
	size     int
	rank     int
	gsizes   []int
	distribs []Distribution
	dargs    []int
	psizes   []int
	order    Order
	want     []int32
}

const dflt = DistributeDefaultDarg

var (
	block, cyclic, none = DistributeBlock, DistributeCyclic, DistributeNone
)

// The references are worked out by hand from MPI 4.1 §5.1.4: a block
// distribution gives process p the indices from p*b, b = ceil(g/n) by
// default; cyclic(k) deals blocks of k in turn; the grid is row-major.
var darrayCases = []darrayCase{
	// 10 over 3 processes in blocks of 4: the last holds 2.
	{"1-D block, first", 3, 0, []int{10}, []Distribution{block}, []int{dflt}, []int{3}, OrderC, []int32{0, 1, 2, 3}},
	{"1-D block, last is short", 3, 2, []int{10}, []Distribution{block}, []int{dflt}, []int{3}, OrderC, []int32{8, 9}},
	// Blocks of 5 over 3 processes of 5 elements: the others hold none.
	{"1-D block(5), empty", 3, 2, []int{5}, []Distribution{block}, []int{5}, []int{3}, OrderC, []int32{}},
	{"1-D block(2) of 5", 3, 2, []int{5}, []Distribution{block}, []int{2}, []int{3}, OrderFortran, []int32{4}},
	// cyclic(2) of 11 over 3: blocks at 0, 6 | 2, 8 | 4, 10 (short).
	{"1-D cyclic(2), first", 3, 0, []int{11}, []Distribution{cyclic}, []int{2}, []int{3}, OrderC, []int32{0, 1, 6, 7}},
	{"1-D cyclic(2), middle", 3, 1, []int{11}, []Distribution{cyclic}, []int{2}, []int{3}, OrderC, []int32{2, 3, 8, 9}},
	{"1-D cyclic(2), last block short", 3, 2, []int{11}, []Distribution{cyclic}, []int{2}, []int{3}, OrderC, []int32{4, 5, 10}},
	{"1-D cyclic default", 2, 1, []int{7}, []Distribution{cyclic}, []int{dflt}, []int{2}, OrderC, []int32{1, 3, 5}},
	{"1-D cyclic(4), one block", 3, 1, []int{7}, []Distribution{cyclic}, []int{4}, []int{3}, OrderC, []int32{4, 5, 6}},
	{"1-D none", 1, 0, []int{3}, []Distribution{none}, []int{7}, []int{1}, OrderC, []int32{0, 1, 2}},
	// 4x5, a 2x2 grid, rows by blocks of 2, columns cyclic(2): columns
	// 0, 1, 4 at grid column 0 and 2, 3 at 1. C order: index 5r+c.
	{"2-D C, rank 1", 4, 1, []int{4, 5}, []Distribution{block, cyclic}, []int{dflt, 2}, []int{2, 2}, OrderC, []int32{2, 3, 7, 8}},
	{"2-D C, rank 2", 4, 2, []int{4, 5}, []Distribution{block, cyclic}, []int{dflt, 2}, []int{2, 2}, OrderC, []int32{10, 11, 14, 15, 16, 19}},
	// Fortran order: index r+4c, rows fastest.
	{"2-D Fortran, rank 2", 4, 2, []int{4, 5}, []Distribution{block, cyclic}, []int{dflt, 2}, []int{2, 2}, OrderFortran, []int32{2, 3, 6, 7, 18, 19}},
	{"2-D Fortran, rank 1", 4, 1, []int{4, 5}, []Distribution{block, cyclic}, []int{dflt, 2}, []int{2, 2}, OrderFortran, []int32{8, 9, 12, 13}},
	// 2x3x4, C order (index 12i+4j+k) on a 1x2x2 grid: i whole, j by
	// blocks of 2 (the second holds only j=2), k cyclic.
	{"3-D C, rank 0", 4, 0, []int{2, 3, 4}, []Distribution{none, block, cyclic}, []int{dflt, dflt, dflt}, []int{1, 2, 2}, OrderC,
		[]int32{0, 2, 4, 6, 12, 14, 16, 18}},
	{"3-D C, rank 3", 4, 3, []int{2, 3, 4}, []Distribution{none, block, cyclic}, []int{dflt, dflt, dflt}, []int{1, 2, 2}, OrderC,
		[]int32{9, 11, 21, 23}},
	// 4x3x2, Fortran order (index i+4j+12k) on a 2x1x2 grid: i by blocks
	// of 3 (the second holds only i=3), j whole, k cyclic.
	{"3-D Fortran, rank 0", 4, 0, []int{4, 3, 2}, []Distribution{block, none, cyclic}, []int{3, dflt, dflt}, []int{2, 1, 2}, OrderFortran,
		[]int32{0, 1, 2, 4, 5, 6, 8, 9, 10}},
	{"3-D Fortran, rank 3", 4, 3, []int{4, 3, 2}, []Distribution{block, none, cyclic}, []int{3, dflt, dflt}, []int{2, 1, 2}, OrderFortran,
		[]int32{15, 19, 23}},
}

func TestDarrayAgainstHandComputed(t *testing.T) {
	mk := committer(t)
	for _, c := range darrayCases {
		t.Run(c.name, func(t *testing.T) {
			dt := mk(theAPI.TypeDarray(c.size, c.rank, c.gsizes, c.distribs, c.dargs, c.psizes, c.order, Int32))
			total := 1
			for _, g := range c.gsizes {
				total *= g
			}
			if got := picks(t, seq(2*total), 1, dt); !slices.Equal(got, c.want) {
				t.Errorf("%s packs %v, want %v", dt.Name(), got, c.want)
			}
			if lb, ext := dt.Extent(); lb != 0 || ext != 4*total {
				t.Errorf("lb %d extent %d, want 0 and the whole array's %d", lb, ext, 4*total)
			}
			// A count of them tiles consecutive arrays.
			want2 := slices.Clone(c.want)
			for _, v := range c.want {
				want2 = append(want2, v+int32(total))
			}
			if got := picks(t, seq(2*total), 2, dt); !slices.Equal(got, want2) {
				t.Errorf("count 2 packs %v, want %v", got, want2)
			}
		})
	}
	dt := mk(theAPI.TypeDarray(4, 2, []int{4, 5}, []Distribution{block, cyclic}, []int{dflt, 2}, []int{2, 2}, OrderC, Int32))
	if got, want := dt.Name(), "darray(4,2;4,5;block,cyclic;-1,2;2,2,C,MPI_INT32_T)"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
}

// TestDarrayPartitions checks, over many grids, that the processes'
// darrays together hold every element of the array exactly once.
func TestDarrayPartitions(t *testing.T) {
	mk := committer(t)
	dists := []Distribution{block, cyclic, none}
	n := 0
	for _, order := range []Order{OrderC, OrderFortran} {
		for _, g0 := range []int{1, 5, 7} {
			for _, g1 := range []int{3, 8} {
				for _, d0 := range dists {
					for _, d1 := range dists {
						for _, p := range [][2]int{{1, 1}, {2, 1}, {1, 3}, {2, 3}, {3, 2}} {
							if d0 == none && p[0] != 1 || d1 == none && p[1] != 1 {
								continue
							}
							for _, k := range []int{dflt, 3} {
								dargs := []int{k, k}
								for i, d := range []Distribution{d0, d1} {
									if d == block && k != dflt && k*p[i] < []int{g0, g1}[i] {
										dargs[i] = dflt
									}
								}
								size, seen := p[0]*p[1], make([]int, g0*g1)
								for r := range size {
									dt := mk(theAPI.TypeDarray(size, r, []int{g0, g1}, []Distribution{d0, d1}, dargs, p[:], order, Int32))
									for _, v := range picks(t, seq(g0*g1), 1, dt) {
										seen[v]++
									}
								}
								for i, s := range seen {
									if s != 1 {
										t.Fatalf("%v %v, %v over %v, dargs %v: element %d held %d times", order, []int{g0, g1}, []Distribution{d0, d1}, p, dargs, i, s)
									}
								}
								n++
							}
						}
					}
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d grids checked", n)
	}
}

// TestDarrayCyclicStaysSmall: a cyclic dimension's type map does not
// grow with the array.
func TestDarrayCyclicStaysSmall(t *testing.T) {
	dt, err := theAPI.TypeDarray(2, 1, []int{1<<20 + 1, 3}, []Distribution{cyclic, cyclic}, []int{dflt, dflt}, []int{2, 1}, OrderFortran, Float64)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(dt.t.segs); n > 2 || dt.Size() != (1<<19)*3*8 {
		t.Errorf("%d runs and %d bytes of data; want at most 2 and %d", n, dt.Size(), (1<<19)*3*8)
	}
}

func TestDarrayErrors(t *testing.T) {
	freed, _ := theAPI.TypeContiguous(2, Int32)
	if err := theAPI.TypeFree(freed); err != nil {
		t.Fatal(err)
	}
	huge, _ := theAPI.TypeContiguous(1<<20, Byte)
	b1, d1 := []Distribution{block}, []int{dflt}
	darray := func(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int) error {
		return second(theAPI.TypeDarray(size, rank, gsizes, distribs, dargs, psizes, OrderC, Int32))
	}
	for _, c := range []struct {
		name  string
		err   error
		class error
		want  string
	}{
		{"size", darray(0, 0, []int{4}, b1, d1, []int{1}), ErrArg, "size 0 (want 1 or more processes)"},
		{"rank", darray(4, 4, []int{4}, b1, d1, []int{4}), ErrArg, "rank 4 (want 0 to 3, a rank among the size 4 processes)"},
		{"negative rank", darray(4, -1, []int{4}, b1, d1, []int{4}), ErrArg, "rank -1 (want 0 to 3"},
		{"no dimensions", darray(1, 0, nil, nil, nil, nil), ErrArg, "no dimensions (want 1 or more)"},
		{"lengths", darray(1, 0, []int{4}, []Distribution{block, block}, d1, []int{1}), ErrArg,
			"1 global sizes, 2 distributions, 1 distribution arguments and 1 process grid sizes (want one of each per dimension)"},
		{"order", second(theAPI.TypeDarray(1, 0, []int{4}, b1, d1, []int{1}, Order(7), Int32)), ErrArg, "order 7 (want OrderC or OrderFortran)"},
		{"global size", darray(1, 0, []int{4, 0}, []Distribution{block, block}, []int{dflt, dflt}, []int{1, 1}), ErrArg,
			"global size 0 of dimension 1 (want 1 or more)"},
		{"grid size", darray(1, 0, []int{4}, b1, d1, []int{0}), ErrArg, "process grid size 0 of dimension 0 (want 1 or more)"},
		{"unset distribution", darray(1, 0, []int{4}, []Distribution{0}, d1, []int{1}), ErrArg,
			"distribution 0 of dimension 0 (want DistributeBlock, DistributeCyclic or DistributeNone)"},
		{"none over processes", darray(2, 0, []int{4}, []Distribution{none}, d1, []int{2}), ErrArg,
			"dimension 0 is not distributed (DistributeNone) but the grid spans 2 processes along it (want 1)"},
		{"block size 0", darray(2, 0, []int{4}, b1, []int{0}, []int{2}), ErrArg, "block size 0 of dimension 0 (want 1 or more, or DistributeDefaultDarg)"},
		{"block size short", darray(3, 0, []int{10}, b1, []int{3}, []int{3}), ErrArg,
			"block size 3 of dimension 0 leaves elements out: 3 processes of blocks of 3 hold fewer than its 10 (want 4 or more, or DistributeDefaultDarg)"},
		{"cyclic size", darray(2, 0, []int{4}, []Distribution{cyclic}, []int{-5}, []int{2}), ErrArg,
			"cyclic block size -5 of dimension 0 (want 1 or more, or DistributeDefaultDarg)"},
		{"grid product", darray(6, 0, []int{4, 4}, []Distribution{block, block}, []int{dflt, dflt}, []int{2, 2}), ErrArg,
			"the process grid 2,2 holds 4 processes, not the size 6 (want its product to be size)"},
		{"grid overflow", darray(4, 0, []int{4, 4}, []Distribution{block, block}, []int{dflt, dflt}, []int{1 << 40, 1 << 40}), ErrArg,
			"the process grid 1099511627776,1099511627776 holds more than the size 4 processes"},
		{"huge array", second(theAPI.TypeDarray(1, 0, []int{1 << 42, 2}, []Distribution{none, none}, []int{dflt, dflt}, []int{1, 1}, OrderC, huge)), ErrArg,
			"spans more than the 1125899906842624 bytes"},
		{"null old type", second(theAPI.TypeDarray(1, 0, []int{4}, b1, d1, []int{1}, OrderC, Datatype{})), ErrType, "MPI_DATATYPE_NULL"},
		{"freed old type", second(theAPI.TypeDarray(1, 0, []int{4}, b1, d1, []int{1}, OrderC, freed)), ErrType, "was freed"},
	} {
		if !errors.Is(c.err, c.class) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %v saying %q", c.name, c.err, c.class, c.want)
		}
	}
	if s := fmt.Sprint(DistributeBlock, DistributeCyclic, DistributeNone, Distribution(9)); s != "block cyclic none Distribution(9)" {
		t.Errorf("distributions print as %q", s)
	}
}
