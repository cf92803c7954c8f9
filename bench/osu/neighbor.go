package osu

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// torusDims is the number of dimensions of the neighbourhood collectives'
// torus; each rank has two neighbours in each, below and above.
const torusDims = 2

// neighbourCollectives are OSU's osu_neighbor_allgather and
// osu_neighbor_alltoall on a periodic 2-D torus of the job's ranks: the
// latency of the blocking call, as the other collectives'.
func neighbourCollectives() []Measurement {
	return []Measurement{
		neighbourhood(collective{name: "neighbor-allgather",
			summary: "every rank's message to each neighbour on a 2-D torus, the neighbours' at every rank",
			about: "time of one NeighborAllgather of size bytes to each of a rank's 4 neighbours on a periodic 2-D torus " +
				"(DimsCreate, CartCreate), averaged over the ranks",
			minSize: 1, buffers: neighborAllgatherCall}),
		neighbourhood(collective{name: "neighbor-alltoall",
			summary: "every rank sends a distinct message to each neighbour on a 2-D torus",
			about: "time of one NeighborAlltoall of size bytes to and from each of a rank's 4 neighbours on a periodic 2-D torus " +
				"(DimsCreate, CartCreate), averaged over the ranks",
			minSize: 1, buffers: neighborAlltoallCall}),
	}
}

// neighbourhood is a collective measured on the torus of the world's
// ranks (with -c, on a Dup of it, which keeps the topology) instead of
// the world; buffers gets the neighbour count, not the rank count.
func neighbourhood(c collective) Measurement {
	m := c.measurement()
	m.Run = func(w mpi.Comm, o Options) ([]Row, error) {
		t, err := torus(w)
		if err != nil {
			return nil, err
		}
		for range torusWarm {
			if err := mpi.Barrier(t); err != nil {
				return nil, fmt.Errorf("warming the torus: %w", err)
			}
		}
		call := c.buffers(2*torusDims, o.MaxSize())
		settle()
		rows, err := timeCollective(t, o, call)
		if ferr := t.Free(); err == nil && ferr != nil {
			err = fmt.Errorf("freeing the torus: %w", ferr)
		}
		return rows, err
	}
	return m
}

// torusWarm is how many barriers a new torus makes before the timing, as
// the world warms before it (and as bench/c's twins do): a grid's steady
// state, past the first calls of a new communicator, which coll sm serves
// through messages until its segment is set up at the 257th; the cold
// plans measure a communicator's first calls.
const torusWarm = 300

// torus arranges w's ranks in a periodic grid of torusDims dimensions,
// as balanced as DimsCreate makes it, in w's order: w's rank 0 is the
// torus's, which reports.
func torus(w mpi.Comm) (mpi.Comm, error) {
	dims := make([]int, torusDims)
	if err := mpi.DimsCreate(w.Size(), dims); err != nil {
		return mpi.Comm{}, fmt.Errorf("the torus's dimensions for %d ranks: %w", w.Size(), err)
	}
	periods := make([]bool, torusDims)
	for i := range periods {
		periods[i] = true
	}
	t, err := mpi.CartCreate(w, dims, periods, false)
	if err != nil {
		return mpi.Comm{}, fmt.Errorf("a %v torus: %w", dims, err)
	}
	return t, nil
}

// neighborAllgatherCall: size bytes to every neighbour, a block of size
// from each of the n neighbours.
func neighborAllgatherCall(n, largest int) func(mpi.Comm, int) error {
	send, recv := filled(largest), filled(n*largest)
	return func(c mpi.Comm, size int) error { return mpi.NeighborAllgather(send[:size], recv[:n*size], c) }
}

// neighborAlltoallCall: a distinct block of size bytes to and from each
// of the n neighbours.
func neighborAlltoallCall(n, largest int) func(mpi.Comm, int) error {
	send, recv := filled(n*largest), filled(n*largest)
	return func(c mpi.Comm, size int) error { return mpi.NeighborAlltoall(send[:n*size], recv[:n*size], c) }
}
