package trace

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// clockSync is what this rank adds to its clock to read rank 0's, and the
// round trip of the exchange that measured it.
type clockSync struct {
	offset, rtt int64 // nanoseconds
}

const (
	// syncRounds is the ping-pongs with each rank; the one with the
	// shortest round trip gives the offset.
	syncRounds = 8
	// syncTag is the tag of the ping-pongs on the world communicator. They
	// run inside Init, before the program can send anything, and each
	// receive names its source, so they cannot take a program's message.
	syncTag = pmpi.TagUB - 0x7ace
)

// syncClock measures this rank's offset to rank 0 with ping-pongs through
// pmpi's real calls. Rank 0 answers every rank in turn with its clock;
// the other ranks assume the answer was read halfway through the round
// trip (Cristian's algorithm).
func syncClock(c clock, world *pmpi.Comm) (clockSync, error) {
	rank, size := world.Rank(), world.Size()
	buf := make([]int64, 1)
	b := pmpi.Bytes(buf)
	if rank == 0 {
		for r := 1; r < size; r++ {
			for range syncRounds {
				if _, err := pmpi.Recv(b, 1, pmpi.Int64, r, syncTag, world); err != nil {
					return clockSync{}, fmt.Errorf("ping from rank %d: %w", r, err)
				}
				buf[0] = c.now()
				if err := pmpi.Send(b, 1, pmpi.Int64, r, syncTag, world); err != nil {
					return clockSync{}, fmt.Errorf("pong to rank %d: %w", r, err)
				}
			}
		}
		return clockSync{}, nil
	}
	var best clockSync
	for k := range syncRounds {
		t0 := c.now()
		buf[0] = t0
		if err := pmpi.Send(b, 1, pmpi.Int64, 0, syncTag, world); err != nil {
			return clockSync{}, fmt.Errorf("ping to rank 0: %w", err)
		}
		if _, err := pmpi.Recv(b, 1, pmpi.Int64, 0, syncTag, world); err != nil {
			return clockSync{}, fmt.Errorf("pong from rank 0: %w", err)
		}
		t1 := c.now()
		if s := (clockSync{offset: buf[0] - (t0+t1)/2, rtt: t1 - t0}); k == 0 || s.rtt < best.rtt {
			best = s
		}
	}
	return best, nil
}
