package pmpi

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/gompi/gompi/frameworks/coll"
)

// Split types of CommSplitType.
const (
	// CommTypeShared groups the ranks that can share memory: those of one
	// host (MPI_COMM_TYPE_SHARED).
	CommTypeShared = 1
)

// agreeContext finds a context id free in every member of parent that
// will be a member of the new communicator: each proposes its lowest free
// one, all take the largest proposal if it is free everywhere, and
// otherwise try again above it. Another goroutine may be creating a
// communicator at the same time; reservations keep the two apart. A rank
// that will not be a member (member false) takes part without a say and
// holds no id after: were it to propose its own lowest free id, ranks
// that each hold a different share of many communicators (single-rank
// ones made by CommCreate in turn) would agree only above all of them,
// after a round per id in use. same, when set, is the group every rank
// must pass alike (or disjoint groups, where same.size is set), checked on
// the way.
func (l *library) agreeContext(parent *Comm, member bool, same *sameGroup) (uint32, error) {
	if same == nil {
		return l.agreeContextFrom(parent.allreduceWords, &parent.ctxWindow, member)
	}
	id, err := l.agreeContextOver(parent.allreduceWords, member, same)
	if err == nil {
		parent.ctxWindow.Store(windowOf(id))
	}
	return id, err
}

// agreeContextFrom agrees a context over allreduce in the window at
// *window if it can (agreeInWindow), else by agreeContextOver's rounds,
// and moves the window to the id agreed.
func (l *library) agreeContextFrom(allreduce allreducer, window *atomic.Uint32, member bool) (uint32, error) {
	if id, ok, err := l.agreeInWindow(allreduce, window, member); ok || err != nil {
		return id, err
	}
	id, err := l.agreeContextOver(allreduce, member, nil)
	if err == nil {
		window.Store(windowOf(id))
	}
	return id, err
}

// windowOf is the word of the context bitmap that holds id.
func windowOf(id uint32) uint32 { return id / 2 / 64 }

// ctxWindow is how many words of the context bitmap agreeInWindow offers:
// 128 communicators' ids.
const ctxWindow = 2

// agreeInWindow agrees a context id in one reduction where it can, where
// agreeContextOver takes two at least: each member takes every id free in
// a window of its bitmap, the same window in every process (from word
// *window, that of the id the last agreement over the parent gave), and the
// bitwise or of what each holds taken leaves the ids free in all, which
// each member holds; the lowest is the new communicator's. ok is false,
// alike on every process, where no id of the window is free in all (a
// member whose other goroutine held the window offers none).
func (l *library) agreeInWindow(allreduce allreducer, window *atomic.Uint32, member bool) (id uint32, ok bool, err error) {
	l.ctxs.sweep(l.engine.Posted)
	w := int(window.Load())
	var free [ctxWindow]uint64
	if member {
		l.ctxs.reserveWindow(w, free[:])
	}
	var words [2 * ctxWindow]uint32
	for i, f := range free {
		if member { // a non-member's 0 takes nothing
			words[2*i], words[2*i+1] = uint32(^f), uint32(^f>>32)
		}
	}
	borOp, _ := bind(OpBor, Uint32)
	err = allreduce(words[:], borOp)
	b := -1
	for i := 0; err == nil && i < ctxWindow; i++ {
		if all := ^(uint64(words[2*i]) | uint64(words[2*i+1])<<32); all != 0 {
			b = 64*(w+i) + bits.TrailingZeros64(all)
			break
		}
	}
	if member {
		l.ctxs.releaseWindow(w, free[:], b)
	}
	if b < 0 {
		return 0, false, err
	}
	id = uint32(2 * b)
	window.Store(windowOf(id))
	return id, true, nil
}

// allreducer reduces words, in place, with op over the processes of an
// agreement.
type allreducer func(words []uint32, op coll.Op) error

// sameGroup is a group that every process of an agreement passes alike,
// and this process's rank, to name it when they do not. bad marks a
// process whose arguments failed its own checks: it takes part all the
// same, so that every process fails with it rather than wait for it.
type sameGroup struct {
	group []int // world ranks, in order
	rank  int
	bad   bool
	also  []int // the arguments the group comes from, where every rank passes them alike

	// size is the number of processes of the agreement where their groups
	// may differ if disjoint, as CommCreate's may: every process in a
	// group passes it, and so does any other that passes it. members are
	// then the group's processes, by rank in the agreement.
	size    int
	members []int
}

// digest hashes the group's world ranks in order, then also.
func (g *sameGroup) digest() uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, w := range g.group {
		binary.LittleEndian.PutUint32(b[:], uint32(w))
		h.Write(b[:])
	}
	if g.also != nil {
		binary.LittleEndian.PutUint32(b[:], ^uint32(0)) // no world rank: the group ends here
		h.Write(b[:])
		for _, v := range g.also {
			binary.LittleEndian.PutUint32(b[:], uint32(v))
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// groupsDiffer is the error of an agreement whose processes passed
// different groups: the lowest rank of each of two of them, and the
// sizes of their groups.
type groupsDiffer struct{ a, na, b, nb int }

func (e *groupsDiffer) Error() string {
	return fmt.Sprintf("rank %d's group of %d ranks differs from rank %d's of %d", e.a, e.na, e.b, e.nb)
}

// groupsOverlap is the error of an agreement whose processes may pass
// groups that differ if disjoint, where process a's group of na
// processes holds b, which passed another of nb.
type groupsOverlap struct{ a, na, b, nb int }

func (e *groupsOverlap) Error() string {
	return fmt.Sprintf("rank %d's group of %d ranks holds rank %d, whose group of %d differs", e.a, e.na, e.b, e.nb)
}

// argsInvalid is the error of an agreement in which a process marked its
// arguments bad: the lowest such rank.
type argsInvalid struct{ rank int }

func (e *argsInvalid) Error() string {
	return fmt.Sprintf("rank %d's arguments failed its checks", e.rank)
}

// agreeContextOver is agreeContext among the processes that allreduce
// spans: those of a communicator, or of both groups of an
// intercommunicator, or of a group (CommCreateGroup). A group to check
// (same) rides on the first reduction, so that a correct call costs no
// more exchanges; every process reads the same result and fails alike.
func (l *library) agreeContextOver(allreduce allreducer, member bool, same *sameGroup) (uint32, error) {
	maxOp, _ := bind(OpMax, Uint32)
	minOp, _ := bind(OpMin, Uint32)
	l.ctxs.sweep(l.engine.Posted)
	words := make([]uint32, 1, 6)
	var from uint32
	for {
		var mine uint32 // a non-member's 0 never raises the maximum
		if member {
			mine = l.ctxs.reserve(from)
		}
		words = append(words[:0], mine)
		var d uint64
		if same != nil {
			// The maxima of each half of the digest and of its
			// complement are that half's largest and smallest value.
			// The maximum of ^rank over the bad processes names the lowest.
			d = same.digest()
			var bad uint32
			if same.bad {
				bad = ^uint32(same.rank)
			}
			words = append(words, uint32(d>>32), uint32(d), ^uint32(d>>32), ^uint32(d), bad)
		}
		err := allreduce(words, maxOp)
		if err == nil && same != nil {
			switch {
			case words[5] != 0:
				err = &argsInvalid{rank: int(^words[5])}
			case words[1] != ^words[3] || words[2] != ^words[4]:
				if same.size > 0 {
					err = same.disjoint(allreduce, d)
				} else {
					err = same.differ(allreduce, d, words[1:])
				}
			}
			same = nil // later rounds carry the proposal alone
		}
		if err != nil {
			if member {
				l.ctxs.release(mine)
			}
			return 0, err
		}
		agreed := words[0]
		ok := !member || agreed == mine || l.ctxs.claim(agreed)
		if member && agreed != mine {
			l.ctxs.release(mine)
		}
		flag := uint32(0)
		if ok {
			flag = 1
		}
		words = append(words[:0], flag)
		err = allreduce(words, minOp)
		if err == nil && words[0] == 1 {
			return agreed, nil
		}
		if member && ok {
			l.ctxs.release(agreed)
		}
		if err != nil {
			return 0, err
		}
		from = agreed + 2
	}
}

// differ names, for the error, two ranks whose groups differ and their
// sizes, from the maxima of the halves of the digests and of their
// complements (mine is this rank's digest): two more reductions, which
// only a failing call runs. The ranks are the lowest whose half holds
// the largest value and the lowest whose half holds the smallest, of the
// first half that differs.
func (g *sameGroup) differ(allreduce allreducer, mine uint64, maxima []uint32) error {
	maxOp, _ := bind(OpMax, Uint32)
	half, hi, lo := uint32(mine>>32), maxima[0], ^maxima[2]
	if hi == lo {
		half, hi, lo = uint32(mine), maxima[1], ^maxima[3]
	}
	words := make([]uint32, 2) // ^rank where this rank holds each, else 0
	for i, v := range []uint32{hi, lo} {
		if half == v {
			words[i] = ^uint32(g.rank)
		}
	}
	if err := allreduce(words, maxOp); err != nil {
		return err
	}
	e := &groupsDiffer{a: int(^words[0]), b: int(^words[1])}
	if e.b < e.a {
		e.a, e.b = e.b, e.a
	}
	words = []uint32{0, 0}
	switch g.rank {
	case e.a:
		words[0] = uint32(len(g.group))
	case e.b:
		words[1] = uint32(len(g.group))
	}
	if err := allreduce(words, maxOp); err != nil {
		return err
	}
	e.na, e.nb = int(words[0]), int(words[1])
	return e
}

// disjoint checks groups that differ where MPI allows it if they are
// disjoint: every process of each group passed that group (mine is this
// process's digest). One reduction gathers every process's digest and
// group size, another names the lowest process whose group holds one
// that passed another: two reductions of three and one words a process,
// which only calls whose groups differ run.
func (g *sameGroup) disjoint(allreduce allreducer, mine uint64) error {
	maxOp, _ := bind(OpMax, Uint32)
	all := make([]uint32, 3*g.size) // by rank: digest's halves, group's size
	all[3*g.rank], all[3*g.rank+1], all[3*g.rank+2] = uint32(mine>>32), uint32(mine), uint32(len(g.group))
	if err := allreduce(all, maxOp); err != nil {
		return err
	}
	digest := func(r int) uint64 { return uint64(all[3*r])<<32 | uint64(all[3*r+1]) }
	held := make([]uint32, g.size) // by rank: 1 + a member of its group that passed another
	for _, m := range g.members {
		if digest(m) != mine {
			held[g.rank] = uint32(m) + 1
			break
		}
	}
	if err := allreduce(held, maxOp); err != nil {
		return err
	}
	for r, h := range held {
		if h != 0 {
			b := int(h - 1)
			return &groupsOverlap{a: r, na: int(all[3*r+2]), b: b, nb: int(all[3*b+2])}
		}
	}
	return nil
}

// allreduceWords reduces words in place with op over c.
func (c *Comm) allreduceWords(words []uint32, op coll.Op) error {
	if c.colls.Allreduce == nil {
		return errorf(ClassIntern, coll.ErrNoProvider, "%v: allreduce", c)
	}
	in, out := putWords(words), make([]byte, 4*len(words))
	c.inOrder()
	if err := c.colls.Allreduce(c.cc, in, out, op); err != nil {
		return served(c.colls, "allreduce", err)
	}
	getWords(out, words)
	return nil
}

// putWords encodes words little-endian.
func putWords(words []uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// getWords decodes b into words.
func getWords(b []byte, words []uint32) {
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

// derive makes the communicator of group (world ranks, in order) on
// context id, with its collectives, or nil if this process is not in
// group. Every member of parent calls it.
func (l *library) derive(parent *Comm, op, name string, group []int, id uint32) (*Comm, error) {
	if !slices.Contains(group, l.job.Rank) {
		l.ctxs.release(id)
		return nil, nil
	}
	c := newComm(l, name, id, group)
	c.errh.Store(parent.errh.Load())
	c.scope = parent.scope
	if err := l.attachColls(c); err != nil {
		l.comms.CompareAndDelete(id, c)
		l.ctxs.release(id)
		return nil, errorf(ClassIntern, err, "%s on %v", op, parent)
	}
	return c, nil
}

// attachColls builds c's collectives from the selected coll components.
func (l *library) attachColls(c *Comm) error {
	host := l.collHost
	// The communicators of one Split share a context id but no member.
	host.ID = l.job.JobID + "." + strconv.FormatUint(uint64(c.context), 10) + "." + strconv.Itoa(c.group[0])
	host.SessionDir = l.job.SessionDir
	host.OneNode = true
	for _, w := range c.group {
		host.OneNode = host.OneNode && l.hostIDs[w] == l.hostIDs[c.group[0]]
	}
	host.Nodes = make([]int, len(c.group)) // all node 0 where OneNode
	if !host.OneNode {
		index := map[string]int{}
		for r, w := range c.group {
			n, ok := index[l.hostIDs[w]]
			if !ok {
				n = len(index)
				index[l.hostIDs[w]] = n
			}
			host.Nodes[r] = n
		}
	}
	t, err := coll.Build(c.cc, l.collCands, host)
	if err != nil {
		return err
	}
	c.colls = t
	if t.RulesDropped() && c.rank == 0 {
		l.collLog.Warn("the coll decision component gave the ranks different rules; every rank uses the built-in decision",
			"comm", c.Name(), "size", c.Size())
	}
	if log := l.collLog; log.IsDebug() {
		log.Debug("collectives chosen", "comm", c.Name(), "size", c.Size(), "providers", strings.Join(t.Providers(), " "))
	}
	return nil
}

// openColl opens and selects the coll components, for every communicator
// to query.
func (l *library) openColl(ctx context.Context) error {
	fw, err := l.sys.Framework(coll.Name)
	if err != nil {
		return err
	}
	if err := fw.Open(ctx); err != nil {
		return err
	}
	sel, err := fw.Select(ctx)
	if err != nil {
		return err
	}
	l.collLog = fw.Logger()
	for _, s := range sel {
		l.collCands = append(l.collCands, coll.Candidate{Name: s.Name, Component: s.Component.(coll.Component), Priority: s.Priority})
	}
	return nil
}

// collArgs checks what every call on a communicator needs, a collective's
// among them: a running library and a valid communicator.
func collArgs(op string, comm *Comm) (*library, error) {
	l, err := running(op)
	if err != nil {
		return nil, err
	}
	if err := checkComm(op, comm); err != nil {
		return nil, err
	}
	return l, nil
}

// CommDup makes a communicator of comm's group with a new context; of
// both its groups, for an intercommunicator. It keeps comm's process
// topology (Split and Create drop it), carries its hints over and copies
// its attributes through their copy callbacks; a failing callback fails
// the Dup.
func (*realAPI) CommDup(comm *Comm) (*Comm, error) {
	l, err := collArgs("comm dup", comm)
	if err != nil {
		return nil, err
	}
	var c *Comm
	if comm.inter != nil {
		c, err = l.interDup(comm)
	} else {
		var id uint32
		if id, err = l.agreeContext(comm, true, nil); err != nil {
			return nil, comm.handle(errorf(classOf(err), err, "comm dup on %v", comm))
		}
		c, err = l.derive(comm, "comm dup", comm.Name()+".dup", slices.Clone(comm.group), id)
		if c != nil {
			c.topo = comm.topo // MPI: a duplicate keeps the topology
		}
	}
	if err == nil {
		err = l.dupExt(comm, c)
	}
	if err != nil {
		return nil, comm.handle(err)
	}
	return c, nil
}

// CommSplit partitions comm by color, ordering each part by key, then by
// rank in comm. A rank whose color is Undefined gets no communicator (nil).
// On an intercommunicator each group splits so, and the parts of one
// color in both groups make an intercommunicator; a color that one group
// lacks gives its ranks in the other none. The colors are checked after
// the ranks exchange them, so that a rank's negative color fails every
// rank, not that rank alone while the others wait for it.
func (*realAPI) CommSplit(comm *Comm, color, key int) (*Comm, error) {
	l, err := collArgs("comm split", comm)
	if err != nil {
		return nil, err
	}
	if comm.inter != nil {
		return l.interSplit(comm, "comm split", ".split", color, key, colorCheck)
	}
	return l.split(comm, "comm split", comm.Name()+".split", color, key, colorCheck)
}

// CommSplitType partitions comm by type: CommTypeShared gives each host's
// ranks a communicator of their own; Undefined gives no communicator. On
// an intercommunicator each host's ranks of one group face that host's
// ranks of the other, and a rank whose host has none of the other group
// gets none. An unknown type, as a bad color in CommSplit, fails every
// rank.
func (*realAPI) CommSplitType(comm *Comm, splitType, key int) (*Comm, error) {
	l, err := collArgs("comm split type", comm)
	if err != nil {
		return nil, err
	}
	color := Undefined
	switch splitType {
	case CommTypeShared:
		color = slices.Index(l.hostIDs, l.hostIDs[l.job.Rank])
	case Undefined:
	default:
		color, key = badArgs, splitType
	}
	if comm.inter != nil {
		return l.interSplit(comm, "comm split type", ".shared", color, key, typeCheck)
	}
	return l.split(comm, "comm split type", comm.Name()+".shared", color, key, typeCheck)
}

// badArgs is the color of a rank whose arguments to a split failed its
// checks, which it sends with what the others need to name the fault in
// place of its key: the unknown type of CommSplitType, say.
const badArgs = -2

// splitCheck is how a split names what a rank passed that gave it a
// negative color other than Undefined, from its color and key, and what
// is allowed; own, if set, is the error this rank returns instead, its
// own arguments having given it such a color.
type splitCheck struct {
	bad  func(color, key int64) string
	want string
	own  error
}

// The checks of CommSplit and CommSplitType.
var (
	colorCheck = splitCheck{bad: func(color, _ int64) string { return fmt.Sprintf("color %d", color) }, want: "want >= 0 or Undefined"}
	typeCheck  = splitCheck{bad: func(_, typ int64) string { return fmt.Sprintf("type %d", typ) }, want: "want CommTypeShared or Undefined"}
)

// split is a split of an intracommunicator, whose colors check checks.
func (l *library) split(comm *Comm, op, name string, color, key int, check splitCheck) (*Comm, error) {
	return l.splitRecords(comm, op, name, colorOf(color, key, 0), check, nil)
}

// splitRecords is split on records that may carry more after the color
// and key (mine, from colorOf, of one length at every rank); same, if
// set, checks every rank's whole record once the colors pass.
func (l *library) splitRecords(comm *Comm, op, name string, mine []byte, check splitCheck, same func(all []byte) error) (*Comm, error) {
	all, err := gatherRecords(comm, op, mine)
	if err != nil {
		return nil, comm.handle(err)
	}
	colors := all
	if len(mine) > colorRecord {
		colors = colorsOnly(all, len(mine))
	}
	if bad := badColors(colors, "", check, nil); len(bad) > 0 {
		return nil, comm.handle(colorsError(op, comm, bad, check))
	}
	if same != nil {
		if err := same(all); err != nil {
			return nil, comm.handle(err)
		}
	}
	color := int(int64(binary.LittleEndian.Uint64(mine)))
	c, err := l.splitBy(comm, op, name, color, colors)
	return c, comm.handle(err)
}

// badColors appends to bad a line for each rank in all (colorOf's
// records, by rank) that passed a negative color other than Undefined,
// as check names it; whose names their group.
func badColors(all []byte, whose string, check splitCheck, bad []string) []string {
	for r := range len(all) / colorRecord {
		color := int64(binary.LittleEndian.Uint64(all[colorRecord*r:]))
		if color < 0 && color != Undefined {
			key := int64(binary.LittleEndian.Uint64(all[colorRecord*r+8:]))
			bad = append(bad, fmt.Sprintf("rank %d%s passed %s", r, whose, check.bad(color, key)))
		}
	}
	return bad
}

// colorsError is the error of a split whose ranks' colors include bad
// ones (badColors): every rank returns it, naming the first few, but one
// that has its own (check.own).
func colorsError(op string, comm *Comm, bad []string, check splitCheck) error {
	if check.own != nil {
		return check.own
	}
	const shown = 3
	if n := len(bad); n > shown {
		bad = append(bad[:shown], fmt.Sprintf("%d more ranks passed such values", n-shown))
	}
	return errorf(ClassArg, nil, "%s on %v: %s (%s)", op, comm, strings.Join(bad, ", "), check.want)
}

// colorRecord is the size of a rank's color and key, as a split
// exchanges them: two little-endian int64s.
const colorRecord = 16

// colorOf is a rank's color and key as a split exchanges them, with room
// for extra bytes after.
func colorOf(color, key, extra int) []byte {
	mine := make([]byte, colorRecord, colorRecord+extra)
	binary.LittleEndian.PutUint64(mine, uint64(int64(color)))
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(key)))
	return mine
}

// gatherRecords returns every rank's record (mine at this rank, of one
// length at every rank) in comm, by rank.
func gatherRecords(comm *Comm, op string, mine []byte) ([]byte, error) {
	if comm.colls.Allgather == nil {
		return nil, errorf(ClassIntern, coll.ErrNoProvider, "%s on %v: allgather", op, comm)
	}
	all := make([]byte, len(mine)*comm.Size())
	comm.inOrder()
	if err := comm.colls.Allgather(comm.cc, mine, all); err != nil {
		return nil, errorf(classOf(err), served(comm.colls, "allgather", err), "%s on %v: allgather", op, comm)
	}
	return all, nil
}

// splitBy makes this rank's part of comm, whose ranks' colors and keys
// are all (colorOf's records, by rank): a context agreed over comm, and the ranks of
// its color ordered by key, then by rank.
func (l *library) splitBy(comm *Comm, op, name string, color int, all []byte) (*Comm, error) {
	id, err := l.agreeContext(comm, color != Undefined, nil)
	if err != nil {
		return nil, errorf(classOf(err), err, "%s on %v", op, comm)
	}
	if color == Undefined {
		return nil, nil
	}
	return l.derive(comm, op, name, membersOf(all, color, comm.group), id)
}

// membersOf is the ranks of group whose color in all (colorOf's records, one
// entry per rank of group) is color, ordered by key, then by rank.
func membersOf(all []byte, color int, group []int) []int {
	type member struct{ key, rank int }
	var members []member
	for r := range group {
		if int(int64(binary.LittleEndian.Uint64(all[colorRecord*r:]))) == color {
			members = append(members, member{int(int64(binary.LittleEndian.Uint64(all[colorRecord*r+8:]))), r})
		}
	}
	slices.SortStableFunc(members, func(a, b member) int { return cmp.Compare(a.key, b.key) })
	out := make([]int, len(members))
	for i, m := range members {
		out[i] = group[m.rank]
	}
	return out
}

// CommCreate makes a communicator of group, a subset of comm's group.
// The ranks may pass different groups if those are disjoint, each rank of
// a group passing that group, and so make several communicators at once
// (a row of a grid each, say); ranks outside the group they pass get nil.
// On an intercommunicator each group passes a subgroup of its own, and
// the two subgroups make an intercommunicator (none if either is empty).
func (*realAPI) CommCreate(comm *Comm, group *Group) (*Comm, error) {
	l, err := collArgs("comm create", comm)
	if err != nil {
		return nil, err
	}
	// A rank whose group fails its checks still takes part in the
	// exchange, so that every rank fails with it.
	own := checkGroup("comm create", group)
	if comm.inter != nil {
		return l.interCreate(comm, group, own)
	}
	var ranks []int
	if own == nil {
		for _, w := range group.ranks {
			if _, ok := comm.rankOf(w); !ok {
				own = errorf(ClassGroup, nil, "comm create on %v: world rank %d of the group is not in the communicator", comm, w)
				break
			}
		}
		ranks = slices.Clone(group.ranks)
	}
	c, err := l.deriveFor(comm, "comm create", comm.Name()+".create", sameArgs{names: "group", disjoint: true}, ranks, own)
	return c, comm.handle(err)
}

// sameArgs names, for the errors of a communicator constructor, the
// arguments that make its group, and whether MPI requires them alike at
// every rank (else only valid at each).
type sameArgs struct {
	names  string
	alike  bool
	values []int // the arguments themselves, compared across the ranks with the group; nil: the group alone
	// disjoint: the groups may differ if disjoint, each rank of a group
	// passing it (CommCreate).
	disjoint bool

	// differ, if set, is the error when the values differ, in place of
	// one naming two ranks whose values differ. Every rank calls it, so
	// it may reduce over the communicator to name them better.
	differ func(*groupsDiffer) error
}

// deriveFor is derive on a context agreed over parent, in which the ranks
// outside group have no say; they get nil. Every rank of parent calls it,
// with the same group (or, where args.disjoint, disjoint ones), which the
// agreement checks: args names what the ranks pass that makes the group,
// for the error. A rank whose arguments
// failed its own checks passes the error (own), which it returns; the
// agreement fails every other rank with an error that names it.
func (l *library) deriveFor(parent *Comm, op, name string, args sameArgs, group []int, own error) (*Comm, error) {
	member := own == nil && slices.Contains(group, l.job.Rank)
	same := &sameGroup{group: group, rank: parent.rank, bad: own != nil, also: args.values}
	if args.disjoint {
		same.size = parent.Size()
		for _, w := range group {
			r, _ := parent.rankOf(w)
			same.members = append(same.members, r)
		}
	}
	id, err := l.agreeContext(parent, member, same)
	if own != nil {
		return nil, own // the agreement failed, on own's mark
	}
	if err != nil {
		return nil, agreeError(op, parent, args, err)
	}
	if !member {
		return nil, nil
	}
	return l.derive(parent, op, name, group, id)
}

// agreeError wraps the error of op's context agreement over comm, where
// every rank passes args.
func agreeError(op string, comm *Comm, args sameArgs, err error) error {
	if d := (*groupsDiffer)(nil); errors.As(err, &d) {
		if args.differ != nil {
			return args.differ(d)
		}
		if args.values != nil {
			return errorf(ClassArg, nil, "%s on %v: the ranks' %s differ (MPI requires the same %s at every rank): rank %d's differ from rank %d's",
				op, comm, args.names, args.names, d.a, d.b)
		}
		return errorf(ClassArg, err, "%s on %v: the ranks' groups differ (MPI requires the same %s at every rank)", op, comm, args.names)
	}
	if o := (*groupsOverlap)(nil); errors.As(err, &o) {
		return errorf(ClassArg, err, "%s on %v: the ranks' groups differ and are not disjoint (MPI requires every rank of a group to pass that group)", op, comm)
	}
	if b := (*argsInvalid)(nil); errors.As(err, &b) {
		want := "valid " + args.names + " at every rank"
		if args.alike {
			want = "the same valid " + args.names + " at every rank"
		}
		return errorf(ClassArg, nil, "%s on %v: rank %d passed invalid %s (MPI requires %s; that rank's own error says what is wrong)", op, comm, b.rank, args.names, want)
	}
	return errorf(classOf(err), err, "%s on %v", op, comm)
}

// CommFree releases a communicator made by Dup, Split, SplitType,
// Create, CreateGroup, IntercommCreate or IntercommMerge; calls on it
// then fail with ErrComm. Its attributes are deleted first: if a delete
// callback fails, so does the Free, and the communicator stays valid.
func (*realAPI) CommFree(comm *Comm) error { return freeComm("comm free", comm, false) }

// CommDisconnect frees comm as CommFree does once every member has called
// it, those of both groups for an intercommunicator (MPI_Comm_disconnect).
// MPI asks that all communication on comm be complete and matched by then,
// so after the barrier none is in flight, and the free waits for comm's
// buffered sends and the collectives started on it.
func (*realAPI) CommDisconnect(comm *Comm) error { return freeComm("comm disconnect", comm, true) }

func freeComm(op string, comm *Comm, disconnect bool) error {
	l, err := collArgs(op, comm)
	if err != nil {
		return err
	}
	if comm.builtin {
		return comm.handle(errorf(ClassComm, nil, "%s: %v cannot be freed", op, comm))
	}
	if disconnect {
		if err := barrierCall(nil, comm); err != nil {
			return err
		}
	}
	if err := comm.freeExt(); err != nil {
		return comm.handle(err)
	}
	if !comm.freed.CompareAndSwap(false, true) {
		return errorf(ClassComm, nil, "%s: %v was already freed", op, comm)
	}
	return l.release(comm)
}

// release frees what comm holds: its buffered messages, collectives and
// context. comm is marked freed.
func (l *library) release(comm *Comm) error {
	l.bsends.drop(owner{comm: comm}, l.engine) // its buffered messages go before its context is reused
	var err error
	if comm.inter != nil {
		err = l.freeInter(comm)
	} else {
		comm.inOrder() // the calls started before Free complete first, as MPI says
		err = comm.colls.Free()
	}
	l.comms.CompareAndDelete(comm.context, comm)
	if comm.keys.Load() != 0 {
		l.engine.SetMatchKeys(comm.context, 0) // the next user of the context has hints of its own
	}
	if l.engine.Posted(comm.context) {
		// MPI lets the receives complete; a new communicator on this
		// id would take their messages, so it waits for them.
		l.ctxs.retire(comm.context)
	} else {
		l.ctxs.release(comm.context)
	}
	if err != nil {
		return errorf(ClassIntern, err, "comm free on %v", comm)
	}
	return nil
}

// CommCompare compares two communicators: Ident for the same one,
// Congruent for the same ranks in the same order, Similar for the same
// ranks in another order, else Unequal.
// Intercommunicators compare by both groups; an intercommunicator and an
// intracommunicator are Unequal.
func (*realAPI) CommCompare(a, b *Comm) (Comparison, error) {
	if err := errors.Join(checkComm("comm compare", a), checkComm("comm compare", b)); err != nil {
		return Unequal, err
	}
	if a == b {
		return Ident, nil
	}
	if a.inter != nil || b.inter != nil {
		return compareInter(a, b), nil
	}
	if r := compareRanks(a.group, b.group); r != Ident {
		return r, nil
	}
	return Congruent, nil
}

// CommSetName names comm for tools and error messages.
func (*realAPI) CommSetName(comm *Comm, name string) error {
	if err := checkComm("comm set name", comm); err != nil {
		return err
	}
	if name == "" {
		return comm.handle(errorf(ClassArg, nil, "comm set name on %v: the name is empty (want 1 to %d bytes)", comm, MaxObjectName))
	}
	name = truncateName(name)
	comm.name.Store(&name)
	return nil
}

// CommGetName returns comm's name; a nil comm is the null communicator,
// CommNullName.
func (*realAPI) CommGetName(comm *Comm) (string, error) {
	if comm == nil {
		return CommNullName, nil
	}
	if err := checkComm("comm get name", comm); err != nil {
		return "", err
	}
	return comm.Name(), nil
}

// MaxObjectName is the longest name a communicator may have (MPI_MAX_OBJECT_NAME).
const MaxObjectName = 127

// truncateName cuts a longer name to MaxObjectName bytes, as MPI 4.1
// (7.10) says, at a character boundary so that the name stays UTF-8.
func truncateName(name string) string {
	if len(name) <= MaxObjectName {
		return name
	}
	n := MaxObjectName
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}

// classOf is the MPI class of err, ClassOther if it has none.
func classOf(err error) ErrorClass {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Class
	case errors.Is(err, coll.ErrTooLong):
		return ClassTruncate
	case errors.Is(err, coll.ErrTooShort):
		return ClassCount
	case errors.Is(err, coll.ErrRootsDisagree):
		return ClassRoot
	}
	return ClassOther
}
