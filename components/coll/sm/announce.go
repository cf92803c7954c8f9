package sm

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/frameworks/coll"
)

// Calls that take different paths. Where the blocks are too small for
// rounds (roundsPay), and from the timed path's smallest size (timed.go),
// a call's size decides whether it goes through the blocks or
// to the next module, so ranks whose counts disagree across the limit (an
// erroneous program) would each wait for what the others never do. Each
// rank therefore announces its calls in its wake-up line: the call's
// number on the communicator, the collective, the path and the size (a
// call through the blocks only once it waits long). A rank that has
// waited a while for a member's word compares the member's announcement
// with the call the word belongs to, and fails with an error that names
// both sizes instead of waiting for ever. A rank that went to the next
// module waits there for messages that will not come; the error of the
// rank that found the mismatch ends the job (MPI's default handler), or
// its caller decides.
//
// Roots. A rooted call's root is in the announcement and in the length
// word of every block written in the call (lengthWord), so a rank that
// reads a block written under another root, or waits long for a member
// that announced another root, fails with an error that names both
// roots (coll.ErrRootsDisagree). A bcast's or scatter's non-root, which
// writes no block, writes the length word of its call when it raises
// its word after reading the root's block, and announces its call when
// it raises it after an error: a rank that took it for the root then
// finds its root. What no rank reads goes unnoticed: in a call of one
// round, a second rank that takes itself for a bcast's or scatter's root
// (its block is read by the ranks that take it for the root, if any, and
// they agree), and a reduce or gather where no rank takes itself for the
// root (no rank reads). A call of several rounds begins with every rank
// reading every member's length word (rounds.go), which finds any
// disagreement.

// offCall is the word of a rank's wake-up line that holds its latest
// call, and offRoot the word that holds the call's root (rootWord).
const (
	offCall = 8
	offRoot = 16
)

// Paths of a call.
const (
	pathSegment = 1 + iota // the blocks carry the data
	pathNext               // the next module's messages
)

var pathNames = [...]string{pathSegment: "through the shared segment", pathNext: "to the next component"}

// callNames are the collectives by the index an announcement carries.
var callNames = [...]string{"barrier", "bcast", "reduce", "allreduce", "gather", "allgather", "scatter",
	"alltoall", "allgatherv", "reduce_scatter", "reduce_scatter_block", "scan", "exscan", "path timing",
	"neighbor_allgather", "neighbor_alltoall"}

func callIndex(name string) int {
	i := slices.Index(callNames[:], name)
	if i < 0 {
		panic("coll sm: no announcement index for " + name)
	}
	return i
}

// callInfo is a rank's announcement of a call. Its word holds the call's
// number modulo 2^24 (ranks are never that far apart), the collective, the
// path and the size, saturated at 16 GiB; its root word the call's number
// again and its root.
type callInfo struct {
	seq  uint64
	name string // one of callNames
	path int
	size int
	root int // noRoot for a collective without one; unknownRoot when read before the rank announced it
}

// Roots that are not a rank.
const (
	noRoot      = -1
	unknownRoot = -2
)

const (
	seqBits  = 24
	seqMask  = 1<<seqBits - 1
	sizeBits = 34
	sizeMax  = 1<<sizeBits - 1
)

func (c callInfo) word() uint64 {
	return c.seq&seqMask | uint64(callIndex(c.name))<<seqBits | uint64(c.path)<<(seqBits+4) |
		min(uint64(c.size), sizeMax)<<(seqBits+6)
}

// callOf is the call of word w; its root is unknown until withRoot.
func callOf(w uint64) callInfo {
	return callInfo{seq: w & seqMask, name: callNames[w>>seqBits&15], path: int(w >> (seqBits + 4) & 3),
		size: int(w >> (seqBits + 6)), root: unknownRoot}
}

// rootWord holds the call's number and its root plus one (0: no root).
func (c callInfo) rootWord() uint64 { return c.seq&seqMask | uint64(c.root+1)<<seqBits }

// withRoot is c with the root that root word rw gives, if rw is of c's
// call: a rank publishes its root word, then its word, and a reader
// loads them the other way round, so a root word of another call is of
// a later one.
func (c callInfo) withRoot(rw uint64) callInfo {
	if rw&seqMask == c.seq {
		c.root = int(rw>>seqBits) - 1
	}
	return c
}

// otherRoot reports whether c's root is known and differs from mine's.
func (c callInfo) otherRoot(mine callInfo) bool { return c.root != unknownRoot && c.root != mine.root }

// since is how many calls c is ahead of the call numbered seq (negative:
// behind), from the low bits that c carries.
func (c callInfo) since(seq uint64) int {
	d := int((c.seq - seq) & seqMask)
	if d >= 1<<(seqBits-1) {
		d -= 1 << seqBits
	}
	return d
}

func (c callInfo) describe() string {
	size := fmt.Sprintf("%d bytes", c.size)
	if c.size == sizeMax {
		size = "at least 16 GiB"
	}
	return fmt.Sprintf("%s of %s goes %s", c.name, size, pathNames[c.path])
}

// announce starts call name of size bytes to root (noRoot), which takes
// path. A call through the blocks is published only once this rank waits
// long or fails (tell): an atomic store at every call cost a small
// collective 4 %, and such a call that does not wait finishes what others
// wait for.
func (m *module) announce(name string, root, size, path int) {
	m.calls++
	m.cur = callInfo{seq: m.calls, name: name, path: path, size: size, root: root}
	m.told = false
	if path != pathSegment {
		m.tell()
	}
}

// tell publishes the current call, once.
func (m *module) tell() {
	if !m.told {
		m.seg.wakeWord64(m.me, offRoot).Store(m.cur.rootWord())
		m.seg.wakeWord64(m.me, offCall).Store(m.cur.word())
		m.told = true
	}
}

// mismatch reports rank r's call as an error if r cannot be in call c the
// way this rank is, which done says r has not finished: r took another
// path in it, is in another collective, passed another root, or went
// past it.
func (m *module) mismatch(r int, c callInfo, done func() bool) error {
	theirs := m.announcedBy(r)
	d := theirs.since(c.seq)
	if d < 0 || d == 0 && theirs.name == c.name && theirs.path == c.path && !theirs.otherRoot(c) {
		return nil // not there yet, or there as this rank is
	}
	if done() {
		return nil // it finished meanwhile: its announcement is of a later call
	}
	if d > 0 {
		return fmt.Errorf("rank %d went past collective call %d on this communicator without taking part "+
			"as this rank does (this rank's %s): the ranks' counts disagree: %w", r, c.seq, c.describe(), coll.ErrTooShort)
	}
	return disagree(r, theirs, c)
}

// announcedBy is rank r's latest call.
func (m *module) announcedBy(r int) callInfo {
	c := callOf(m.seg.wakeWord64(r, offCall).Load())
	return c.withRoot(m.seg.wakeWord64(r, offRoot).Load())
}

// disagree is the error of rank r's call theirs, the same call as this
// rank's mine, that differs from it.
func disagree(r int, theirs, mine callInfo) error {
	if theirs.name != mine.name {
		return differentCalls(r, theirs.name, mine.name, mine.seq)
	}
	if theirs.otherRoot(mine) {
		return rootsDisagree(r, theirs.root, mine)
	}
	return fmt.Errorf("rank %d's %s, where this rank's %s: the ranks' counts disagree: %w",
		r, theirs.describe(), mine.describe(), coll.WrongLength(theirs.size, mine.size))
}

// differentCalls is the error of rank r, in collective theirs where this
// rank is in mine, both collective call seq on the communicator.
func differentCalls(r int, theirs, mine string, seq uint64) error {
	return fmt.Errorf("rank %d is in %s where this rank is in %s (collective call %d on this communicator): "+
		"the ranks call different collectives", r, theirs, mine, seq)
}

// rootsDisagree is the error of rank r, which passed root theirs (noRoot:
// it is in a collective without one) to this rank's call mine.
func rootsDisagree(r, theirs int, mine callInfo) error {
	return fmt.Errorf("rank %d passed %s where this rank passed %s to %s (collective call %d on this communicator): %w",
		r, rootText(theirs), rootText(mine.root), mine.name, mine.seq, coll.ErrRootsDisagree)
}

func rootText(root int) string {
	if root == noRoot {
		return "no root"
	}
	return fmt.Sprintf("root %d", root)
}
