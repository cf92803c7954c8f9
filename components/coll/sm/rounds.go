package sm

// Calls larger than a block go through the blocks in rounds, each an
// epoch of its own that carries the next piece of every contribution.
// The epochs' double buffering pipelines them: a rank writes round j+1's
// piece while the others still read round j's, and the pieces stay in the
// caches. Against the single copy (cross-memory attach) that served large
// calls before and tuned's messages, at 128 KiB-1 MiB (docs/performance.md):
// on 2 ranks 0.3-0.9 of the time (alltoall about the same), on 4 and 8
// 0.4-0.9 for reduce, allreduce and allgather, alltoall on 4 about the
// same; single copy was removed. roundsPay leaves the cases where the
// next component's messages were faster to them.
//
// Ranks whose counts disagree would do different numbers of rounds and
// fall out of step for good, so the first round of a call of several is
// also an agreement: every member writes its length word in it, whether
// it contributes or not, and reads every other's (agree). A member whose
// count is small enough for one round does not write when it does not
// contribute, but the length word carries the call's number, so the word
// it left from an earlier call does not pass for this one's.

// inRounds serves bytes 0 to size of a contribution in pieces of at most
// piece bytes, calling f for bytes lo to hi of each, in order; first says
// that the piece is the first of several (multi). A call of 0 bytes is
// one round.
func inRounds(size, piece int, multi bool, f func(lo, hi int, first bool) error) error {
	for lo := 0; ; {
		hi := min(lo+piece, size)
		if err := f(lo, hi, multi && lo == 0); err != nil || hi == size {
			return err
		}
		lo = hi
	}
}

// roundsPay reports whether a call of collective name of size bytes a
// rank, too large for a block, goes in rounds: when a round's piece holds
// at least a line for every rank (smaller blocks, coll_sm_max_bytes set
// very low, leave large calls to the next component), except where
// the next component's messages were measured faster. On 8 ranks sharing
// 2 CPUs, alltoall in rounds took 1.1-1.5 times tuned's pairwise exchange from
// blocks of 256 KiB a rank (about the same at 128 KiB, 0.6 at 64 KiB, a
// send buffer of 512 KiB), and bcast 1.5-1.6 times tuned's at 1 MiB
// (about the same at 512 KiB): every rank waits for the others at every
// round, and each wait is a context switch. The same holds for alltoall
// on 4 ranks sharing 2 CPUs against tuned's exchange with every message
// posted at once: send buffers of 2-4 MiB took 1.3-1.6 times as long in
// rounds (1.0-1.3 at 1 MiB). A neighbour alltoall on 8 ranks sharing 2
// CPUs took 1.0-1.4 times basic's messages from send buffers of 1 MiB
// (256 KiB a neighbour), and 0.6 of their time at 512 KiB. On 2 ranks with
// a CPU each, and for the other collectives on 8, rounds were as fast or
// faster everywhere.
func (m *module) roundsPay(name string, size int) bool {
	if m.limit < m.n*line {
		return false
	}
	switch name {
	case "alltoall":
		return size <= 512<<10 || m.n <= 4 && !m.yield
	case "neighbor_alltoall":
		return size <= 512<<10 || m.n <= 4 || !m.yield
	case "bcast":
		return m.n <= 4 || size <= 512<<10
	}
	return true
}

// piece is the size of a round's piece of a contribution of total bytes
// of elem-byte elements: the whole contribution in a call of one round,
// else the whole lines of limit bytes, which hold whole elements.
func piece(limit int, multi bool, total, elem int) int {
	if !multi {
		return total
	}
	p := limit &^ (line - 1)
	return max(p-p%elem, elem)
}

// share is piece for a contribution split among the ranks (alltoall,
// scatter) in parts of k bytes: a round carries a piece of each part.
func (m *module) share(multi bool, k int) int {
	if !multi {
		return k
	}
	return m.limit / m.n &^ (line - 1)
}

// agree checks, in a call's first round of several, that every member's
// count is this rank's, total, or counts[r] for rank r where the ranks'
// counts differ (allgatherv); every member has raised its word for the
// round.
func (m *module) agree(p uint64, total int, counts []int, first bool) error {
	for r := 0; r < m.n && first; r++ {
		if counts != nil {
			total = counts[r]
		}
		if r != m.me {
			if _, err := m.read(r, p, total, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitMin is the least redundant reading that makes an allreduce split
// its reduction (allreduceSplit): a flat round has each of n ranks read
// and reduce every block, n-1 pieces more than its share, which costs
// more than the split's second epoch once they add up to this many bytes.
// On 2 CPUs (gompi-bench allreduce, 3 alternating rounds against the flat
// rounds): 8 ranks 0.58-0.85 of the time from 32 KiB, 4 ranks 0.89 at 64
// KiB, 0.64-0.70 from 128 KiB and alike at 32 KiB; on 2 ranks it was
// slower at 512 KiB-1 MiB (1.13-1.41) and alike below, so 2 ranks stay
// flat.
const splitMin = 256 << 10

// splitPays reports whether an allreduce of total bytes a rank splits
// its reduction.
func (m *module) splitPays(total int) bool { return m.n > 2 && total*m.n >= splitMin }
