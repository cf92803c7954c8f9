package mpi

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// ReduceLocal combines in and inout element by element with op and leaves
// the result in inout (MPI_Reduce_local): inout[i] becomes in[i] op
// inout[i]. No message moves. The slices must be of one length.
func ReduceLocal[T Elem](in, inout []T, op Op) error {
	if len(in) != len(inout) {
		return &pmpi.Error{Class: pmpi.ClassCount,
			Msg: fmt.Sprintf("reduce local: %d input elements and %d in the output; they must be as many", len(in), len(inout))}
	}
	b, n, dt := typed(in)
	return api().ReduceLocal(b, pmpi.Bytes(inout), n, dt, op)
}
