package pmpi

import (
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// A collective receive of a peer's failure mark fails as the peer's
// failure; one byte too many is still counts that disagree.
func TestCollRecvFailureMark(t *testing.T) {
	x := collComm{c: &Comm{}}
	if err := x.result(1, 8, &pml.Status{Total: len(coll.FailureMark(8))}); !errors.Is(err, coll.ErrPeerFailed) {
		t.Errorf("a failure mark: %v, want coll.ErrPeerFailed", err)
	}
	if err := x.result(1, 8, &pml.Status{Total: 9}); !errors.Is(err, ErrTruncate) || errors.Is(err, coll.ErrPeerFailed) {
		t.Errorf("9 bytes for 8: %v, want ErrTruncate", err)
	}
}

// Receive blocks that share an element are refused, in whatever order
// the displacements come; blocks that touch, or are empty, are not.
func TestDisjointReceiveBlocks(t *testing.T) {
	k := &collCall{comm: &Comm{}, op: "gatherv"}
	for _, tc := range []struct {
		counts, displs []int
		clash          string // the blocks named, or "" for none
	}{
		{[]int{3, 3}, []int{0, 3}, ""},
		{[]int{3, 0, 3}, []int{3, 1, 0}, ""},
		{[]int{3, 3}, []int{0, 2}, "rank 0 (3 elements at 0) and rank 1 (3 elements at 2)"},
		{[]int{1, 2, 12}, []int{10, 20, 0}, "rank 2 (12 elements at 0) and rank 0 (1 elements at 10)"},
		{[]int{10, 1, 1}, []int{0, 12, 5}, "rank 0 (10 elements at 0) and rank 2 (1 elements at 5)"},
	} {
		bc, bd := make([]int, len(tc.counts)), make([]int, len(tc.counts))
		for i := range bc {
			bc[i], bd[i] = 4*tc.counts[i], 4*tc.displs[i]
		}
		err := k.disjoint("rank", bc, bd, 4)
		if tc.clash == "" && err != nil || tc.clash != "" && (!errors.Is(err, ErrBuffer) || !strings.Contains(err.Error(), tc.clash)) {
			t.Errorf("counts %v displs %v: %v, want %q", tc.counts, tc.displs, err, tc.clash)
		}
	}
}
