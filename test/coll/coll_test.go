// Package coll_test runs the collectives as real multi-rank jobs: it
// builds gompirun and the collcheck program and launches them as a user
// would. Each job runs a whole matrix of cases inside and checks every
// result against a reference computed by the rank itself.
package coll_test

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, collcheck string

func TestMain(m *testing.M) {
	jobtest.Main(m, map[string]string{"gompirun": "../../cmd/gompirun", "collcheck": "./testdata/collcheck"}, func(bins map[string]string) {
		gompirun, collcheck = bins["gompirun"], bins["collcheck"]
	})
}

// jobTimeout is gompirun's own limit on a job; hangLimit, the test's
// limit on gompirun, is a little longer. Neither decides a pass: a job
// that reaches them is hung.
const (
	jobTimeout = 150 * time.Second
	hangLimit  = jobTimeout + 30*time.Second
)

type job = jobtest.Job

// run starts gompirun with args under its --timeout and waits for it.
func run(t *testing.T, args ...string) job {
	t.Helper()
	args = append([]string{"--timeout", fmt.Sprint(int(jobTimeout.Seconds()))}, smFirst(args)...)
	j := jobtest.Run(t, gompirun, hangLimit, nil, args...)
	if j.Code == 124 {
		t.Fatalf("hung: gompirun's --timeout ended the job\n%v", j)
	}
	return j
}

// smFirst has coll sm serve a communicator from its first collective
// call, where args do not say otherwise: the tests of its algorithms,
// its checks and its segments' lifetime are about the calls it serves,
// which by default begin after a communicator's first 256.
func smFirst(args []string) []string {
	if slices.Contains(args, "coll_sm_segment_after") {
		return args
	}
	return append([]string{"--mca", "coll_sm_segment_after", "0"}, args...)
}

// setting is one way of running the collectives: extra gompirun
// arguments, the sizes and transports to run them with.
type setting struct {
	name     string
	args     []string
	sizes    []int
	btls     []string
	scenario string // collcheck's scenario; "" for the whole matrix
	long     []int  // more sizes, which only -long runs
}

// long runs the sizes of the matrix that repeat a kind of size the
// others cover (make test-long).
var long = flag.Bool("long", false, "run every size of the collective matrix")

var (
	// 1 and 2, powers of two and not; -long adds 6, 7 and 9. A job of 9
	// ranks on 2 CPUs costs twice one of 6: 5 (4+1) is the same case for
	// the algorithms.
	allSizes = []int{1, 2, 3, 4, 5, 8}
	// tcp is slower under oversubscription: the edge cases 1 and 2, a
	// power of two and not; -long adds 7 and 8.
	tcpSizes = []int{1, 2, 3, 4}
	// everySize: collcheck's algorithms scenario on 7 ranks runs every
	// collective, the large vectors too, on communicators of 1 to 7 ranks
	// (world and Splits of it) in one job, cheaper than a job per size;
	// -long runs it on 9 too. The components' own tests run every
	// algorithm on 1 to 9 ranks in one process.
	everySize = []int{7}
)

// settings are the component selections the matrix runs under: basic
// alone, the default stack, and tuned with each algorithm forced. Rows
// whose parameter or component this build lacks are skipped, saying so,
// unless every build links it (linked).
var settings = []setting{
	{name: "basic", args: []string{"--mca", "coll", "basic"}, sizes: allSizes, long: []int{6, 7, 9}, btls: []string{"sm"}},
	{name: "basic", args: []string{"--mca", "coll", "basic"}, sizes: tcpSizes, long: []int{7, 8}, btls: []string{"tcp"}},
	// The default stack (coll sm first) and coll sm over basic take the
	// sizes of 1 to 8 between them, 2 in both (coll sm's timed path), and
	// -long 9: a job of 9 ranks on 2 CPUs is slow.
	// The default row has coll sm make the segment after a communicator's
	// first 16 calls, as it does after 256 by default: the matrix passes
	// from tuned to the segment on every communicator it makes calls on
	// (the other suites' jobs run with the default).
	{name: "default", args: []string{"--mca", "coll_sm_segment_after", "16"}, sizes: []int{1, 2, 4, 6, 7, 8}, btls: []string{"sm"}},
	// coll sm over basic, and with a 64-byte limit so that the matrix's
	// counts fall on both sides of it (larger calls go to tuned); the
	// default stack above runs it too. Its own tests run 2 to 9 ranks in
	// one process.
	{name: "sm", args: []string{"--mca", "coll", "sm,self,basic"}, sizes: []int{2, 3, 5}, long: []int{9}, btls: []string{"sm"}},
	{name: "sm-64", args: []string{"--mca", "coll", "sm,self,tuned,basic", "--mca", "coll_sm_max_bytes", "64"},
		sizes: []int{3, 8}, btls: []string{"tcp"}},
	tunedAll(1), tunedAll(2), tunedAll(3), tunedAll(4),
}

// tunedAlgorithms is how many algorithms coll tuned has per collective.
var tunedAlgorithms = map[string]int{
	"barrier": 3, "bcast": 4, "reduce": 3, "allreduce": 4,
	"allgather": 3, "alltoall": 3, "gather": 2, "scatter": 2,
}

// tunedAll forces algorithm n of every tuned collective that has one (the
// others keep tuned's decision): four jobs cover them all, each on
// communicators of 1 to 9 ranks. They run the part of the matrix that an
// algorithm changes.
func tunedAll(n int) setting {
	args := []string{"--mca", "coll", "tuned,basic"}
	for _, c := range slices.Sorted(maps.Keys(tunedAlgorithms)) {
		if n <= tunedAlgorithms[c] {
			args = append(args, "--mca", fmt.Sprintf("coll_tuned_%s_algorithm", c), fmt.Sprint(n))
		}
	}
	return setting{name: fmt.Sprintf("tuned-all-%d", n), args: args, sizes: everySize, long: []int{9}, btls: []string{"sm"}, scenario: "algorithms"}
}

// unknown finds, in a job that failed at Init, the parameter or component
// of its own arguments that this build does not know: what the job said,
// and the name; "" if none.
var unknownRE = regexp.MustCompile(`unknown parameter "([^"]+)"|no component named "([^"]+)"`)

func unknown(j job, args []string) (what, name string) {
	for _, m := range unknownRE.FindAllStringSubmatch(j.Stderr, -1) {
		name := m[1] + m[2]
		for _, a := range args {
			if a == name || slices.Contains(strings.Split(a, ","), name) {
				return m[0], name
			}
		}
	}
	return "", ""
}

// alwaysLinked are the components that every build of gompi links
// (components/all): a setting that needs one of them, or a parameter of
// one, never skips.
var alwaysLinked = []string{"basic", "han", "self", "sm", "tuned"}

// linked reports whether name, a component or a parameter
// (<framework>_<component>_<name>), is of a component every build links.
func linked(name string) bool {
	if slices.Contains(alwaysLinked, name) {
		return true
	}
	parts := strings.SplitN(name, "_", 3)
	return len(parts) == 3 && slices.Contains(alwaysLinked, parts[1])
}

// TestMatrix runs every collective, in place and not, with counts 0, 1,
// 7 and about 100k, several types and operations, user operations, every
// kind of root, on world and derived communicators, two communicators at
// once, the communicator and group calls, and the errors a rank can see
// alone: one job per size, transport and setting.
func TestMatrix(t *testing.T) {
	for _, s := range settings {
		for _, btl := range s.btls {
			for _, np := range slices.Concat(s.sizes, s.long) {
				t.Run(fmt.Sprintf("%s/%s/np%d", s.name, btl, np), func(t *testing.T) {
					t.Parallel()
					if !*long && slices.Contains(s.long, np) {
						t.Skip("a size that only -long runs (make test-long)")
					}
					// Strict: an unknown parameter fails Init instead of
					// being ignored with a warning.
					args := append([]string{"-np", fmt.Sprint(np), "--oversubscribe", "--mca", "mca_base_strict", "true",
						"--mca", "btl", "self," + btl}, s.args...)
					scenario := cmp.Or(s.scenario, "matrix")
					j := run(t, append(args, collcheck, scenario)...)
					if j.Code != 0 {
						if what, name := unknown(j, s.args); linked(name) {
							t.Fatalf("setting %s needs %s, of a component every build links: %s\n%v", s.name, name, what, j)
						} else if what != "" {
							t.Skipf("this build lacks what setting %s needs: %s", s.name, what)
						}
					}
					expectOK(t, j, scenario, np)
				})
			}
		}
	}
}

// expectOK checks that every rank of an np-rank job reported success.
func expectOK(t *testing.T, j job, scenario string, np int) {
	t.Helper()
	if j.Code != 0 {
		t.Fatalf("a rank failed\n%v", j)
	}
	for r := range np {
		if !strings.Contains(j.Stdout, fmt.Sprintf("ok %s rank %d ", scenario, r)) {
			t.Errorf("rank %d did not report success\n%v", r, j)
		}
	}
}

// TestTimedPath runs, on 2 and 4 ranks over btl sm, the calls whose path
// coll sm times often enough for its trial and its choice, and with each
// path forced: every result must be right whichever path a call took (the
// component's own tests check that the ranks always take the same).
func TestTimedPath(t *testing.T) {
	for _, np := range []int{2, 4} {
		for _, mode := range []string{"timed", "segment", "next"} {
			t.Run(fmt.Sprintf("np%d/%s", np, mode), func(t *testing.T) {
				t.Parallel()
				j := run(t, "-np", fmt.Sprint(np), "--oversubscribe", "--mca", "btl", "self,sm",
					"--mca", "coll_sm_path", mode, collcheck, "timed")
				expectOK(t, j, "timed", np)
			})
		}
	}
}

// TestDeterministic: sums of float64 values whose result depends on the
// order of the additions give the same bits on every rank and in every
// repetition (collcheck determinism), under the default stack and under
// tuned with each allreduce algorithm forced.
func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name string
		np   int
		args []string
	}{
		{"default/np3", 3, nil},
		{"default/np8", 8, nil},
		{"tuned-1/np5", 5, []string{"--mca", "coll", "tuned,basic", "--mca", "coll_tuned_allreduce_algorithm", "1"}},
		{"tuned-2/np5", 5, []string{"--mca", "coll", "tuned,basic", "--mca", "coll_tuned_allreduce_algorithm", "2"}},
		{"tuned-3/np6", 6, []string{"--mca", "coll", "tuned,basic", "--mca", "coll_tuned_allreduce_algorithm", "3"}},
		{"tuned-4/np5", 5, []string{"--mca", "coll", "tuned,basic", "--mca", "coll_tuned_allreduce_algorithm", "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-np", fmt.Sprint(tc.np), "--oversubscribe"}, tc.args...)
			t.Parallel()
			j := run(t, append(args, collcheck, "determinism")...)
			expectOK(t, j, "determinism", tc.np)
		})
	}
}

// TestRegrouped: a reduction whose sum depends on the grouping gives the
// same bits on a communicator's first calls, which coll sm leaves to the
// next component, as after its segment is made (collcheck regrouped).
func TestRegrouped(t *testing.T) {
	for _, tc := range []struct {
		np  int
		btl string
	}{{3, "sm"}, {4, "sm"}, {3, "tcp"}} {
		t.Run(fmt.Sprintf("np%d/%s", tc.np, tc.btl), func(t *testing.T) {
			t.Parallel()
			j := run(t, "-np", fmt.Sprint(tc.np), "--oversubscribe", "--mca", "btl", "self,"+tc.btl,
				"--mca", "coll_sm_segment_after", "256", collcheck, "regrouped")
			expectOK(t, j, "regrouped", tc.np)
		})
	}
}

// TestLateRank: each rank in turn comes 5 ms late to a bcast, an
// allreduce, an allgather and a barrier on coll sm's segment, so that the
// others have gone to sleep on its futexes and must be woken by its
// raise (collcheck late).
func TestLateRank(t *testing.T) { onSM(t, "late") }

// onSM runs collcheck's scenario over btl sm on 2 ranks, a CPU each, and
// on 4 sharing them.
func onSM(t *testing.T, scenario string) {
	for _, np := range []int{2, 4} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			t.Parallel()
			j := run(t, "-np", fmt.Sprint(np), "--oversubscribe", "--mca", "btl", "self,sm", collcheck, scenario)
			expectOK(t, j, scenario, np)
		})
	}
}

// TestRecords runs user operations whose unit is a record of several
// elements (an affine pair, a Welford triple; collcheck records) on 3
// and 4 ranks under every component stack and every forced tuned
// reduce and allreduce algorithm, with counts that cross coll sm's rounds
// (also with blocks of 4 KiB) and split allreduce and tuned's segments:
// the results must be exactly the serial fold's, whatever the algorithm.
func TestRecords(t *testing.T) {
	stacks := []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"basic", []string{"--mca", "coll", "basic"}},
		{"sm", []string{"--mca", "coll", "sm,self,basic"}},
		{"sm-4k", []string{"--mca", "coll", "sm,self,tuned,basic", "--mca", "coll_sm_max_bytes", "4096"}},
	}
	for alg := 1; alg <= tunedAlgorithms["allreduce"]; alg++ {
		args := []string{"--mca", "coll", "tuned,basic", "--mca", "coll_tuned_allreduce_algorithm", fmt.Sprint(alg)}
		if alg <= tunedAlgorithms["reduce"] {
			args = append(args, "--mca", "coll_tuned_reduce_algorithm", fmt.Sprint(alg))
		}
		stacks = append(stacks, struct {
			name string
			args []string
		}{fmt.Sprintf("tuned-%d", alg), args})
	}
	for _, s := range stacks {
		for _, np := range []int{3, 4} {
			t.Run(fmt.Sprintf("%s/np%d", s.name, np), func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-np", fmt.Sprint(np), "--oversubscribe", "--mca", "mca_base_strict", "true"}, s.args...)
				j := run(t, append(args, collcheck, "records")...)
				expectOK(t, j, "records", np)
			})
		}
	}
}

// TestMismatchedCounts runs collectives where ranks pass counts that
// disagree: the job must end, not hang, with some rank reporting
// ErrTruncate or ErrCount. In the straddles one rank's count fits coll
// sm's blocks and the others' do not. The kinds root-* are rooted
// collectives where the ranks' roots disagree (collcheck's rootMismatch),
// in the ways coll sm detects (docs/programming.md, Errors): some rank
// must report ErrRoot.
func TestMismatchedCounts(t *testing.T) {
	kinds := []string{"bcast", "bcast-large", "reduce", "allreduce", "scan", "gather", "scatter", "allgather", "alltoall",
		"bcast-straddle", "allreduce-straddle",
		"root-bcast", "root-reduce", "root-gather", "root-scatter",
		"root-reduce-second", "root-gather-second", "root-bcast-cycle", "root-scatter-cycle",
		"root-bcast-second-large", "root-scatter-second-large"}
	for _, btl := range []string{"sm", "tcp"} {
		for _, kind := range kinds {
			t.Run(btl+"/"+kind, func(t *testing.T) {
				t.Parallel()
				j := run(t, "-np", "3", "--oversubscribe", "--mca", "btl", "self,"+btl, collcheck, "mismatch", kind)
				if j.Code == 0 {
					t.Fatalf("the job succeeded\n%v", j)
				}
				if !strings.Contains(j.Stdout, "detected mismatch "+kind+" rank ") {
					t.Errorf("no rank reported the mismatch\n%v", j)
				}
				if strings.Contains(j.Stderr, "FAIL rank") {
					t.Errorf("a rank failed otherwise\n%v", j)
				}
				words := strings.Split(kind, "-")
				op := words[0]
				if op == "root" {
					op = words[1]
				}
				checkErrorContext(t, j, "detected mismatch "+kind+" rank ", op, "sm")
			})
		}
	}
}

// TestMismatchEveryRank: where rank 1's count differs from the others'
// (collcheck mismatcheach), every rank returns an error, none waits for
// ever, and the communicator works afterwards: a rank that finds the
// mismatch goes on with its part of the call, sending failure marks.
func TestMismatchEveryRank(t *testing.T) {
	// The default stack as a plain run has it: coll sm serves a
	// communicator's calls after its first 256, and tuned these.
	stacks := []struct {
		name string
		args []string
	}{
		{"default", []string{"--mca", "coll_sm_segment_after", "256"}},
		{"tuned", []string{"--mca", "coll", "tuned,basic,self"}},
	}
	for _, s := range stacks {
		for _, kind := range []string{"allreduce", "allgather", "alltoallv-self", "alltoallw-self"} {
			t.Run(s.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-np", "3", "--oversubscribe"}, s.args...)
				j := run(t, append(args, collcheck, "mismatcheach", kind)...)
				expectOK(t, j, "mismatcheach", 3)
				for r := range 3 {
					if !strings.Contains(j.Stdout, fmt.Sprintf("failed mismatcheach %s rank %d: ", kind, r)) {
						t.Errorf("rank %d did not report its error\n%v", r, j)
					}
				}
			})
		}
	}
}

// TestCommDisagree: where the ranks of a communicator creation pass
// arguments that disagree (collcheck commdisagree), every rank that calls
// it returns the same error, naming the rank at fault and what MPI
// allows, rather than one rank failing and the others waiting for it;
// the same creation with arguments that agree then works. Each kind runs
// on the default stack and on tuned.
func TestCommDisagree(t *testing.T) {
	kinds := []struct {
		kind  string
		ranks []int // those that call it
		text  func(rank int) string
	}{
		{"split", []int{0, 1, 2, 3}, func(int) string {
			return "comm split on comm MPI_COMM_WORLD: rank 2 passed color -5 (want >= 0 or Undefined)"
		}},
		{"splittype", []int{0, 1, 2, 3}, func(int) string {
			return "comm split type on comm MPI_COMM_WORLD: rank 1 passed type 42 (want CommTypeShared or Undefined)"
		}},
		// World rank 2 is rank 1 of the even ranks' group.
		{"intersplit", []int{0, 1, 2, 3}, func(r int) string {
			whose := map[bool]string{true: "local", false: "remote"}[r%2 == 0]
			return fmt.Sprintf(": rank 1 of the %s group passed color -3 (want >= 0 or Undefined)", whose)
		}},
		{"create", []int{0, 1, 2, 3}, func(int) string {
			return "comm create on comm MPI_COMM_WORLD: the ranks' groups differ and are not disjoint (MPI requires every rank of a group to pass that group): " +
				"rank 0's group of 3 ranks holds rank 2, whose group of 2 differs"
		}},
		{"creategroup", []int{0, 1, 2}, func(int) string {
			return "comm create group on comm MPI_COMM_WORLD: the ranks' groups differ (MPI requires the same group at every rank): " +
				"rank 0's group of 3 ranks differs from rank 1's of 3"
		}},
		// The rank at fault returns its own error, the others one naming it.
		{"cart", []int{0, 1, 2, 3}, atFault(
			"cart create on comm MPI_COMM_WORLD: the grid [2 3] has more places than the communicator's 4 ranks",
			"cart create on comm MPI_COMM_WORLD: rank 2 passed invalid dims and periods (MPI requires the same valid dims and periods at every rank;")},
		{"cartdiffer", []int{0, 1, 2, 3}, func(int) string {
			return "cart create on comm MPI_COMM_WORLD: the ranks' dims and periods differ (MPI requires the same dims and periods at every rank): rank 0's differ from rank 1's"
		}},
		{"cartsub", []int{0, 1, 2, 3}, atFault(
			"cart sub on comm MPI_COMM_WORLD.cart: remain has 1 entries for a grid of 2 dimensions (want one per dimension)",
			"cart sub on comm MPI_COMM_WORLD.cart: rank 2 passed a remain of length 1 (want one entry per dimension of the grid, 2, at every rank)")},
		{"cartsubdiffer", []int{0, 1, 2, 3}, func(int) string {
			return "cart sub on comm MPI_COMM_WORLD.cart: rank 2 passed remain [false true] where rank 0 passed [true false] (MPI requires the same remain at every rank)"
		}},
		{"graph", []int{0, 1, 2, 3}, atFault(
			"graph create on comm MPI_COMM_WORLD: edges[7] is 4 (want a rank from 0 to 3)",
			"graph create on comm MPI_COMM_WORLD: rank 2 passed invalid index and edges (MPI requires the same valid index and edges at every rank;")},
		{"graphdiffer", []int{0, 1, 2, 3}, func(int) string {
			return "graph create on comm MPI_COMM_WORLD: the ranks' index and edges differ (MPI requires the same index and edges at every rank): rank 0's differ from rank 3's"
		}},
		{"distgraph", []int{0, 1, 2, 3}, atFault(
			"dist graph create on comm MPI_COMM_WORLD: dests[0] is 7 (want a rank from 0 to 3)",
			"dist graph create on comm MPI_COMM_WORLD: rank 2 passed invalid edges (MPI requires valid edges at every rank;")},
		// Rank 3, of degree 0 with empty weights, is weighted.
		{"distweights", []int{0, 1, 2, 3}, func(int) string {
			return "dist graph create on comm MPI_COMM_WORLD: rank 2 passed nil weights (unweighted) where rank 0 passed weights (MPI requires weights at every rank or nil at every rank)"
		}},
		{"adjacent", []int{0, 1, 2, 3}, atFault(
			"dist graph create adjacent on comm MPI_COMM_WORLD: weights for one direction only",
			"dist graph create adjacent on comm MPI_COMM_WORLD: rank 2 passed invalid edges (MPI requires valid edges at every rank;")},
		{"adjweights", []int{0, 1, 2, 3}, func(int) string {
			return "dist graph create adjacent on comm MPI_COMM_WORLD: rank 1 and 1 more rank passed nil weights (unweighted) where rank 0 passed weights (MPI requires weights at every rank or nil at every rank)"
		}},
		{"intercreate", []int{0, 1, 2, 3}, func(r int) string {
			if r == 2 {
				return ": world rank 1 of the group is not in the local group"
			}
			whose := map[bool]string{true: "local", false: "remote"}[r%2 == 0]
			return fmt.Sprintf(": rank 1 of the %s group passed an invalid group (MPI requires the ranks of each group to pass the same subgroup of their own group;", whose)
		}},
		{"intercreatediffer", []int{0, 1, 2, 3}, func(r int) string {
			whose := map[bool]string{true: "local", false: "remote"}[r%2 == 0]
			return fmt.Sprintf(": ranks 0 and 1 of the %s group passed different groups (MPI requires the ranks of each group to pass the same subgroup of their own group)", whose)
		}},
		{"merge", []int{0, 1, 2, 3}, func(int) string {
			return ": the ranks of one group passed different values of high (every rank of a group passes the same)"
		}},
		// World rank 2 is rank 1 of the even ranks' half; world rank 0
		// leads that half and tells the odd half's leader.
		{"intercommleader", []int{0, 1, 2, 3}, func(r int) string {
			if r == 2 {
				return "intercomm create on comm MPI_COMM_WORLD.split: local leader 5 is out of range (0 to 1)"
			}
			whose := map[bool]string{true: "local", false: "remote"}[r%2 == 0]
			return fmt.Sprintf("intercomm create on comm MPI_COMM_WORLD.split: rank 1 of the %s group passed an invalid local leader "+
				"(MPI requires the same valid local leader at every rank of a group; that rank's own error says what is wrong)", whose)
		}},
		{"intercommleaderdiffer", []int{0, 1, 2, 3}, func(int) string {
			return "intercomm create on comm MPI_COMM_WORLD.split: rank 1 of the local group passed local leader 1 where rank 0 passed 0 " +
				"(MPI requires the same local leader at every rank of a group)"
		}},
		{"creategroupbad", []int{0, 1, 2}, atFault(
			"comm create group on comm MPI_COMM_WORLD.split: world rank 3 of the group is not in the communicator",
			"comm create group on comm MPI_COMM_WORLD.split: rank 2 passed invalid group (MPI requires the same valid group at every rank; that rank's own error says what is wrong)")},
	}
	stacks := []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"tuned", []string{"--mca", "coll", "tuned,basic,self"}},
	}
	for _, s := range stacks {
		for _, k := range kinds {
			t.Run(s.name+"/"+k.kind, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-np", "4", "--oversubscribe"}, s.args...)
				j := run(t, append(args, collcheck, "commdisagree", k.kind)...)
				expectOK(t, j, "commdisagree", 4)
				for _, r := range k.ranks {
					prefix := fmt.Sprintf("failed commdisagree %s rank %d: ", k.kind, r)
					i := strings.Index(j.Stdout, prefix)
					if i < 0 {
						t.Errorf("rank %d did not report its error\n%v", r, j)
						continue
					}
					line, _, _ := strings.Cut(j.Stdout[i+len(prefix):], "\n")
					if want := k.text(r); !strings.Contains(line, want) {
						t.Errorf("rank %d's error:\n%s\nwant it to say\n%s", r, line, want)
					}
				}
			})
		}
	}
}

// atFault is the error text of TestCommDisagree where world rank 2's
// arguments fail its own checks: its own error there, and one naming it
// at the others.
func atFault(own, others string) func(rank int) string {
	return func(rank int) string {
		if rank == 2 {
			return own
		}
		return others
	}
}

// TestErrorContext: a collective's error names the call, the
// communicator and the component that served it once each, whichever
// component that is.
func TestErrorContext(t *testing.T) {
	for _, component := range []string{"sm", "tuned", "basic"} {
		t.Run(component, func(t *testing.T) {
			t.Parallel()
			j := run(t, "-np", "3", "--oversubscribe", "--mca", "coll", component+",self", collcheck, "mismatch", "allreduce")
			if !strings.Contains(j.Stdout, "detected mismatch allreduce rank ") {
				t.Fatalf("no rank reported the mismatch\n%v", j)
			}
			checkErrorContext(t, j, "detected mismatch allreduce rank ", "allreduce", component)
		})
	}
}

// checkErrorContext checks the errors that j's ranks print on the lines
// that begin with prefix: each names the call op on MPI_COMM_WORLD once,
// and once the component, which must be component. A peer is named with
// its communicator ("rank 1 of comm MPI_COMM_WORLD"), apart from the call.
func checkErrorContext(t *testing.T, j job, prefix, op, component string) {
	t.Helper()
	components := regexp.MustCompile(`coll (basic|self|sm|tuned):`)
	peers := regexp.MustCompile(`rank \d+ of comm MPI_COMM_WORLD`)
	for line := range strings.Lines(j.Stdout) {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		named := components.FindAllStringSubmatch(line, -1)
		comms := strings.Count(line, "MPI_COMM_WORLD") - len(peers.FindAllString(line, -1))
		if strings.Count(line, op+" on ") != 1 || comms != 1 || len(named) != 1 || named[0][1] != component {
			t.Errorf("the error does not name %s on comm MPI_COMM_WORLD and coll %s once each: %s", op, component, line)
		}
	}
}

// TestSkippedCollective: after a Barrier of every rank, rank 0 skips a
// Barrier that the others call, then every rank calls Allreduce
// (collcheck skip allreduce). Each rank's call fails saying that the
// ranks call different collectives, which ones, and the call's number
// (2): rank 0 in its Allreduce, the others in their Barrier.
func TestSkippedCollective(t *testing.T) {
	j := run(t, "-np", "3", "--oversubscribe", "--mca", "btl", "self,sm", collcheck, "skip", "allreduce")
	zero := regexp.MustCompile(`skip allreduce rank 0: .*rank [12] is in barrier where this rank is in allreduce ` +
		`\(collective call 2 on this communicator\): the ranks call different collectives`)
	other := regexp.MustCompile(`skip allreduce rank [12]: .*rank 0 is in (allreduce|a collective that carries data \(4 bytes from it\)) ` +
		`where this rank is in barrier \(collective call 2 on this communicator\): the ranks call different collectives`)
	if !zero.MatchString(j.Stdout) || len(other.FindAllString(j.Stdout, -1)) != 2 {
		t.Errorf("every rank should say that the ranks call different collectives, naming them\n%v", j)
	}
	if strings.Contains(j.Stdout, "count") {
		t.Errorf("a rank reported a count mismatch\n%v", j)
	}
}

// TestSkippedCollectiveBeforeFinalize: rank 0 skips a Barrier and calls
// Finalize while the others wait in the Barrier (collcheck skip
// finalize); the job hangs, and gompirun's report at its timeout says that
// rank 0 waits in Finalize and that the others wait for it in a call it
// left without.
func TestSkippedCollectiveBeforeFinalize(t *testing.T) {
	t.Parallel()
	// Long enough for the ranks to reach where they hang on a loaded
	// machine, and for a rank starved of CPU to answer the report; the
	// test waits for it, in parallel with the others.
	j := jobtest.Run(t, gompirun, hangLimit, nil, smFirst([]string{"-np", "3", "--oversubscribe", "--mca", "btl", "self,sm",
		"--timeout", "10", "--report-state-on-timeout", "--report-state-wait", "1m", collcheck, "skip", "finalize"})...)
	if j.Code != 124 {
		t.Fatalf("exit status %d, want 124 (the job hangs until gompirun's timeout)\n%v", j.Code, j)
	}
	for _, want := range []string{
		"rank 0 (pid ", ") waits in Finalize at skip.go:",
		"gompirun: rank 1 waits for 0 inside barrier on MPI_COMM_WORLD at skip.go:",
		"gompirun: rank 2 waits for 0 inside barrier on MPI_COMM_WORLD at skip.go:",
		"but rank 0 waits in Finalize at skip.go:",
	} {
		if !strings.Contains(j.Stderr, want) {
			t.Errorf("the report lacks %q\n%v", want, j)
		}
	}
	if strings.Contains(j.Stderr, "has no pending MPI operation") {
		t.Errorf("a rank reported as having nothing pending\n%v", j)
	}
}

// TestCommChurn makes and frees 2000 communicators with collectives on
// some, and holds 200 idle ones (collcheck churn), on 2 and 4 ranks: the
// results are right, idle communicators map no coll sm segment, and the
// segments of freed ones stay bounded.
func TestCommChurn(t *testing.T) { onSM(t, "churn") }

// TestErrorsAreFatalIsInherited: a Dup of world takes world's
// ErrorsAreFatal, so a bad root on it aborts the job with the error's
// class.
func TestErrorsAreFatalIsInherited(t *testing.T) {
	j := run(t, "-np", "3", "--oversubscribe", collcheck, "fatal")
	if j.Code != 15 { // MPI_ERR_ROOT's class number
		t.Fatalf("exit status %d, want 15\n%v", j.Code, j)
	}
	for _, want := range []string{"ErrorsAreFatal", "root 3 is out of range", "MPI_COMM_WORLD.dup"} {
		if !strings.Contains(j.Stderr, want) {
			t.Errorf("stderr lacks %q\n%v", want, j)
		}
	}
}

// TestProvidersAreLoggedAndAsked: which component serves each collective
// of each communicator is logged under coll_base_verbose (world, a split
// of one and of two ranks, its dup) and is what a tool gets from
// CollProviders, under the default selection and under another.
func TestProvidersAreLoggedAndAsked(t *testing.T) {
	chosen := regexp.MustCompile(`collectives chosen: rank=(\d) comm=(\S+) size=(\d) providers="([^"]*)"`)
	asked := regexp.MustCompile(`rank (\d) world providers (.*)`)
	for _, tc := range []struct {
		args       []string
		many, self string // what serves bcast on communicators of several ranks and of one
	}{
		{nil, "bcast=sm", "bcast=self"},
		{[]string{"--mca", "coll", "tuned,basic"}, "bcast=tuned", "bcast=tuned"},
	} {
		args := append([]string{"-np", "3", "--oversubscribe", "--mca", "coll_base_verbose", "debug"}, tc.args...)
		j := run(t, append(args, collcheck, "providers")...)
		if j.Code != 0 {
			t.Fatalf("%v: job failed\n%v", tc.args, j)
		}
		logged := map[string]string{} // "rank comm size" -> providers
		for _, m := range chosen.FindAllStringSubmatch(j.Stderr, -1) {
			logged[m[1]+" "+m[2]+" "+m[3]] = m[4]
		}
		for rank := range 3 {
			half := map[bool]string{true: "2", false: "1"}[rank%2 == 0]
			for _, key := range []string{"MPI_COMM_WORLD 3", "MPI_COMM_WORLD.split " + half, "MPI_COMM_WORLD.split.dup " + half} {
				p, ok := logged[fmt.Sprint(rank)+" "+key]
				want := tc.many
				if strings.HasSuffix(key, " 1") {
					want = tc.self
				}
				if !ok || !slices.Contains(strings.Fields(p), want) {
					t.Errorf("%v: rank %d, %s: logged %q (found %v), want %s among them", tc.args, rank, key, p, ok, want)
				}
			}
		}
		for _, m := range asked.FindAllStringSubmatch(j.Stdout, -1) {
			if got, want := strings.TrimSpace(m[2]), logged[m[1]+" MPI_COMM_WORLD 3"]; got != want {
				t.Errorf("%v: rank %s's tool asked and got %q, the log says %q", tc.args, m[1], got, want)
			}
		}
		if n := len(asked.FindAllString(j.Stdout, -1)); n != 3 {
			t.Errorf("%v: %d ranks said what CollProviders gives, want 3\n%v", tc.args, n, j)
		}
	}
}
