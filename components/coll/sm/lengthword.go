package sm

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

// lengthWord is a block's length word for a contribution of total bytes
// to the current call: the length modulo 2 GiB, the call's root plus one
// (0: no root), and the call's number on the communicator (announce.go),
// so that a block left from an earlier call is never taken for this
// one's, nor a block written under another root for this root's.
func (m *module) lengthWord(total int) uint64 {
	return uint64(total)&lenMask | uint64(m.cur.root+1)<<lenBits | (m.calls&seqMask)<<(lenBits+rootBits)
}

const (
	lenBits  = 31
	lenMask  = 1<<lenBits - 1
	rootBits = 64 - seqBits - lenBits
	rootMask = 1<<rootBits - 1
)

// noData, in the root bits of a length word, marks the word of a call
// that carries no data (a barrier): its length bits hold the collective
// (callIndex), so that a rank in another collective in the same epoch
// can name it (markWord).
const noData = rootMask

// Every root plus one fits in the length word, below noData.
const _ uint = noData - 1 - maxMaxRanks

// markWord is a block's length word in a call of collective name that
// carries no data.
func (m *module) markWord(name string) uint64 {
	return uint64(callIndex(name)) | noData<<lenBits | (m.calls&seqMask)<<(lenBits+rootBits)
}

// otherCall is the error of rank r, whose length word w in this epoch is
// not the one this rank's call of collective mine expects, if w is the
// word of a call that carries no data (markWord) with this call's number,
// which it names; nil otherwise. (A word of another number is one left
// from an earlier call: it says nothing of where r is.)
func (m *module) otherCall(r int, w uint64, mine string) error {
	if int(w>>lenBits&rootMask) != noData || int(w&lenMask) >= len(callNames) || w>>(lenBits+rootBits) != m.calls&seqMask {
		return nil
	}
	return differentCalls(r, callNames[w&lenMask], mine, m.calls)
}

// lengthOf is the length that length word w gives, for a contribution of
// total bytes expected: the nearest to total of those that agree with
// w's bits.
func lengthOf(w uint64, total int) int {
	return total + int(int64((w-uint64(total))<<(64-lenBits))>>(64-lenBits))
}

// sameLength checks that rank r's contribution of n bytes is the want
// bytes this rank expects.
func sameLength(r, n, want int) error {
	switch {
	case n > want:
		return fmt.Errorf("rank %d contributed %d bytes where this rank expects %d: %w", r, n, want, coll.ErrTooLong)
	case n < want:
		return fmt.Errorf("rank %d contributed %d bytes where this rank expects %d: %w", r, n, want, coll.ErrTooShort)
	}
	return nil
}
