package pmpi

import (
	"errors"
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
