package sm

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/lowlevel"
)

// begin starts the next epoch, a call of collective name, and returns its
// parity.
func (m *module) begin(name string) uint64 {
	m.call = name
	m.epoch++
	m.mine[m.epoch&1] = m.cur
	return m.epoch & 1
}

// raise publishes this rank's block of the epoch: its data, if any, was
// written before.
func (m *module) raise(p uint64) {
	if w := epochWord(m.seg.block(m.me, p)); m.fenced {
		lowlevel.StoreReleaseUint64(w, m.epoch)
	} else {
		w.Store(m.epoch)
	}
	m.seen[m.me] = m.epoch
	// The store above and a sleeper's count before its last look are a
	// Dekker pair: a rank that looked before the store is counted here.
	// Where the process joined the remote fences (m.fenced), the
	// sleeper's RemoteFence orders this rank's store and load, and the
	// store need not wait for its line to come over (XCHG does).
	if sleepers, wake := m.seg.wakeLine(m.me); sleepers.Load() != 0 {
		wake.Add(1)
		lowlevel.FutexWake(wake)
	}
}

// pass raises this rank's word of parity p in a call where it read the
// root's block, a contribution of total bytes, and wrote none of its own
// (a bcast's or scatter's non-root); err is the read's. Its length word
// then says this rank's call and root, so that a rank that takes it for
// the root finds that the roots disagree: written only after a read that
// succeeded, which says that the root's write of this epoch waited until
// every member was done with the block's previous one. After an error
// this rank announces its call instead.
func (m *module) pass(p uint64, total int, err error) {
	if err == nil {
		*lenWord(m.seg.block(m.me, p)) = m.lengthWord(total)
	} else {
		m.tell()
	}
	m.raise(p)
}

// write copies data into this rank's block of parity p, once every member
// is done with what the block held two epochs ago. total is the size of
// the contribution data belongs to: data itself, or a piece of it when
// the call goes in rounds (rounds.go).
func (m *module) write(p uint64, total int, data []byte) error {
	b, err := m.claim(p, total)
	if err == nil {
		m.w.Copy(b, data) // lines the others read last time: the faster copy
	}
	return err
}

// claim waits until every member is done with what this rank's block of
// parity p held two epochs ago, and returns the block's data for this
// rank to fill; its length word says total.
func (m *module) claim(p uint64, total int) ([]byte, error) {
	if err := m.claimAs(p, m.lengthWord(total)); err != nil {
		return nil, err
	}
	return m.seg.block(m.me, p)[dataOff(total):], nil
}

// claimAs is claim that writes length word w: a lengthWord, or a
// markWord in a call that carries no data.
func (m *module) claimAs(p uint64, w uint64) error {
	if m.epoch > 2 {
		for r := range m.n {
			if err := m.await(r, m.epoch-1); err != nil {
				return err
			}
		}
	}
	*lenWord(m.seg.block(m.me, p)) = w
	return nil
}

// read waits for rank r's block of the current epoch and returns its
// first n bytes; the block must be of a contribution of total bytes (n
// of them when the call goes in rounds).
func (m *module) read(r int, p uint64, total, n int) ([]byte, error) {
	b := m.seg.block(r, p)
	var ahead []byte
	if !m.yield { // where ranks share CPUs, a look is followed by a context switch
		ahead = aheadOf(b, total, n)
	}
	if err := m.awaitLines(r, m.epoch, ahead); err != nil {
		return nil, err
	}
	if w := *lenWord(b); w != m.lengthWord(total) {
		// A member that went to the next component wrote no block.
		mine, theirs := m.mine[p], m.announcedBy(r)
		if theirs.since(mine.seq) == 0 && theirs.path != mine.path {
			return nil, disagree(r, theirs, mine)
		}
		if err := m.otherCall(r, w, mine.name); err != nil {
			return nil, err
		}
		if w>>(lenBits+rootBits) != m.calls&seqMask {
			// r raised its word without writing a block: after an error,
			// which it announced (pass), or in this call with a count
			// small enough for one round, where this rank's took several
			// (rounds.go).
			if theirs.since(mine.seq) == 0 && theirs.name == mine.name && theirs.otherRoot(mine) {
				return nil, rootsDisagree(r, theirs.root, mine)
			}
			return nil, fmt.Errorf("rank %d takes part in call %d on this communicator with a smaller count "+
				"than this rank's %d bytes: the ranks' counts disagree: %w", r, m.calls, total, coll.ErrTooShort)
		}
		if root := int(w>>lenBits&rootMask) - 1; root != mine.root {
			return nil, rootsDisagree(r, root, mine)
		}
		return nil, sameLength(r, lengthOf(w, total), total)
	}
	off := dataOff(total)
	return b[off : off+n], nil
}
