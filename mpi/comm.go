package mpi

import "github.com/gompi/gompi/pmpi"

// Comm is a communicator. The zero Comm is invalid: calls on it fail with
// ErrComm, Rank returns -1 and Size 0.
type Comm struct{ c *pmpi.Comm }

// CommWorld is the communicator of every rank of the job.
func CommWorld() Comm { return Comm{api().CommWorld()} }

// CommSelf is the communicator of this rank alone.
func CommSelf() Comm { return Comm{api().CommSelf()} }

// Rank is this process's rank in the communicator, or -1 for an invalid one.
func (c Comm) Rank() int {
	r, err := api().CommRank(c.c)
	if err != nil {
		return -1
	}
	return r
}

// Size is the number of ranks in the communicator, or 0 for an invalid one.
func (c Comm) Size() int {
	n, err := api().CommSize(c.c)
	if err != nil {
		return 0
	}
	return n
}

// SetErrorHandler sets what a failing call on the communicator does:
// return the error (ErrorsReturn, the default) or abort the job.
func (c Comm) SetErrorHandler(h ErrorHandler) {
	if c.c != nil {
		c.c.SetErrorHandler(h)
	}
}

// String names the communicator.
func (c Comm) String() string {
	if c.c == nil {
		return "comm (invalid)"
	}
	return c.c.String()
}
