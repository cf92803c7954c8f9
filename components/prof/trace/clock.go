package trace

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// clockSync is what this rank adds to its clock to read rank 0's, and the
// round trip of the exchange that measured it.
type clockSync struct {
	offset, rtt int64 // nanoseconds
	measured    int64 // the offset measured; offset is 0 when it is within the error
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
				if _, err := pmpi.Real().Recv(b, 1, pmpi.Int64, r, syncTag, world); err != nil {
					return clockSync{}, fmt.Errorf("ping from rank %d: %w", r, err)
				}
				buf[0] = c.now()
				if err := pmpi.Real().Send(b, 1, pmpi.Int64, r, syncTag, world); err != nil {
					return clockSync{}, fmt.Errorf("pong to rank %d: %w", r, err)
				}
			}
		}
		return clockSync{}, nil
	}
	samples := make([]clockSync, 0, syncRounds)
	for range syncRounds {
		t0 := c.now()
		buf[0] = t0
		if err := pmpi.Real().Send(b, 1, pmpi.Int64, 0, syncTag, world); err != nil {
			return clockSync{}, fmt.Errorf("ping to rank 0: %w", err)
		}
		if _, err := pmpi.Real().Recv(b, 1, pmpi.Int64, 0, syncTag, world); err != nil {
			return clockSync{}, fmt.Errorf("pong from rank 0: %w", err)
		}
		t1 := c.now()
		samples = append(samples, clockSync{measured: buf[0] - (t0+t1)/2, rtt: t1 - t0})
	}
	return bestOffset(samples), nil
}

// bestOffset keeps the exchange with the shortest round trip, whose
// reading of rank 0's clock is the least uncertain.
func bestOffset(samples []clockSync) clockSync {
	var best clockSync
	for k, s := range samples {
		if k == 0 || s.rtt < best.rtt {
			best = s
		}
	}
	// The measurement is off by up to half the round trip. An offset
	// within that is no evidence of one: ranks on one host read the same
	// clock, and correcting them by noise could put a receive before its send.
	if abs(best.measured) > best.rtt/2 {
		best.offset = best.measured
	}
	return best
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
