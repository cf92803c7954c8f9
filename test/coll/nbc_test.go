package coll_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestNonBlocking runs collcheck nbc over sm and tcp under the default
// stack, where coll sm and han serve the blocking calls and the
// non-blocking and persistent ones in start order, with
// sm's segment from the first call, and under basic alone: every
// non-blocking and persistent collective against its blocking call, on
// world, a split and a dup; several outstanding, waited in reverse order
// and mixed with point-to-point requests; overlap with computation; a
// persistent call restarted without allocating.
func TestNonBlocking(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default/sm", []string{"-np", "4", "--mca", "btl", "self,sm"}},
		{"segment/sm", []string{"-np", "3", "--mca", "btl", "self,sm", "--mca", "coll_sm_segment_after", "0"}},
		{"default/tcp", []string{"-np", "3", "--mca", "btl", "self,tcp"}},
		{"basic/sm", []string{"-np", "3", "--mca", "btl", "self,sm", "--mca", "coll", "basic,self"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := run(t, append(append([]string{"--oversubscribe"}, tc.args...), collcheck, "nbc")...)
			np := 4
			if tc.args[1] == "3" {
				np = 3
			}
			expectOK(t, j, "nbc", np)
		})
	}
}

// TestNonBlockingMany: more non-blocking collectives outstanding on a
// communicator than it has slots, over sm (collcheck nbcmany).
func TestNonBlockingMany(t *testing.T) {
	j := run(t, "--oversubscribe", "-np", "3", "--mca", "btl", "self,sm", collcheck, "nbcmany")
	expectOK(t, j, "nbcmany", 3)
}

// TestNonBlockingMismatch: a non-blocking or persistent collective whose
// ranks' counts disagree starts without error, and its Wait reports
// ErrTruncate or ErrCount, named after the call and the component: sm,
// whose segment runs the non-blocking and persistent calls in start
// order, and tuned, which runs them side by side without sm.
func TestNonBlockingMismatch(t *testing.T) {
	for _, tc := range []struct{ kind, comp string }{
		{"ibcast", "sm"}, {"iallreduce", "sm"}, {"allreduce-init", "sm"},
		{"iallreduce", "tuned"}, {"allreduce-init", "tuned"},
	} {
		kind, comp := tc.kind, tc.comp
		t.Run(kind+"/"+comp, func(t *testing.T) {
			t.Parallel()
			args := []string{"-np", "3", "--oversubscribe", "--mca", "btl", "self,sm"}
			if comp == "tuned" {
				args = append(args, "--mca", "coll", "^sm,han")
			}
			j := run(t, append(args, collcheck, "nbcmismatch", kind)...)
			if j.Code == 0 {
				t.Fatalf("the job succeeded\n%v", j)
			}
			if !strings.Contains(j.Stdout, "detected mismatch "+kind+" rank ") {
				t.Errorf("no rank reported the mismatch\n%v", j)
			}
			if strings.Contains(j.Stderr, "FAIL rank") {
				t.Errorf("a rank failed otherwise\n%v", j)
			}
			call := strings.ReplaceAll(kind, "-", " ")
			if !strings.Contains(j.Stdout, call+" on comm MPI_COMM_WORLD: coll "+comp+": ") {
				t.Errorf("the error does not name the call, the communicator and %s once each\n%v", comp, j)
			}
		})
	}
}

// TestAlltoallw runs collcheck alltoallw on 1 to 4 ranks under the
// default stack, where coll tuned, sm and han leave the call to basic
// (self on one rank), and under basic alone over tcp: blocks of a vector
// type beside plain ones, zero counts, byte displacements out of order,
// in place, non-blocking and persistent, and the errors of each argument.
func TestAlltoallw(t *testing.T) {
	for _, tc := range []struct {
		name string
		np   int
		args []string
	}{
		{"default/1", 1, nil},
		{"default/2", 2, nil},
		{"default/3", 3, nil},
		{"default/4", 4, nil},
		{"basic/tcp/3", 3, []string{"--mca", "coll", "basic,self", "--mca", "btl", "self,tcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-np", fmt.Sprint(tc.np), "--oversubscribe"}, tc.args...)
			j := run(t, append(args, collcheck, "alltoallw")...)
			expectOK(t, j, "alltoallw", tc.np)
		})
	}
}
