package pmpi

import (
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
)

// The kinds follow coll.Collectives, whose order names them in the table.
func TestCollKindsFollowCollectives(t *testing.T) {
	want := map[int]string{collBarrier: "barrier", collAllreduce: "allreduce", collAlltoallv: "alltoallv",
		collReduceScatterBlock: "reduce_scatter_block", collExscan: "exscan"}
	for kind, name := range want {
		if coll.Collectives[kind] != name {
			t.Errorf("kind %d is %q in coll.Collectives, want %q", kind, coll.Collectives[kind], name)
		}
	}
	if len(coll.Collectives) != collExscan+1 {
		t.Errorf("%d collectives, %d kinds", len(coll.Collectives), collExscan+1)
	}
}
