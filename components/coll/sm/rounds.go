package sm

// Calls larger than a block go through the blocks in rounds, each an
// epoch of its own that carries the next piece of every contribution.
// The epochs' double buffering pipelines them: a rank writes round j+1's
// piece while the others still read round j's, and the pieces stay in the
// caches. Against the single copy (cross-memory attach) that served large
// calls before, and tuned's messages, rounds took 0.04-0.6 of the time
// on 2, 4 and 8 ranks from 128 KiB to 4 MiB, and never more
// (docs/performance.md), so single copy was removed.
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

// roundsPay reports whether calls too large for a block go in rounds: when
// a round's piece holds at least a line for every rank. Smaller blocks
// (coll_sm_max_bytes set very low) leave them to the next component.
func (m *module) roundsPay() bool { return m.limit >= m.n*line }

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
