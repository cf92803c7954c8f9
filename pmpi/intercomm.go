package pmpi

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// An intercommunicator joins two disjoint groups: its point-to-point
// calls name ranks of the remote group, so Comm.group and Comm.ranks hold
// that group (the paths of Send and Recv read them as for any
// communicator) and inter holds the local one. Its own agreements (a
// context id for Dup and Merge, the collectives it serves) go over
// bridge, a hidden intracommunicator of the local group, and between the
// two groups' rank 0 on the intercommunicator's collective context.
type interPart struct {
	local  []int // local rank -> world rank
	bridge *Comm // the local group, with a context and collectives of its own
}

// The library's own messages on a communicator's collective context use
// tags below the coll framework's (coll.TagBarrier and down, a few dozen).
const (
	// tagInterLeaders carries what an intercommunicator's two rank 0s swap.
	tagInterLeaders = -64
	// tagInterBcast carries an intercommunicator Bcast from its root to
	// the remote group's rank 0.
	tagInterBcast = -65
	// tagUserBase is where the tags of IntercommCreate and CommCreateGroup
	// start: the caller's tag t goes as tagUserBase - t modulo
	// hiddenTagSpan. Partitioned communication's tags are below
	// (partitioned.go).
	tagUserBase   = -128
	hiddenTagSpan = 1 << 30
)

// hiddenTag maps a caller's tag (0 to TagUB) to a tag of the collective
// context, apart from the coll framework's and the library's own: tags
// equal modulo hiddenTagSpan (2^30) share one.
func hiddenTag(tag int) int {
	return tagUserBase - tag%hiddenTagSpan
}

// localGroup is the group this process belongs to in c, by rank.
func (c *Comm) localGroup() []int {
	if c.inter != nil {
		return c.inter.local
	}
	return c.group
}

// side is one group's part in an agreement that spans both groups of an
// intercommunicator (being made, or made): every rank of local calls
// across alike; the leaders meet through swap.
type side struct {
	local  *Comm // an intracommunicator of this group
	leader int   // rank in local of this group's leader
	// swap, called by the leader alone, sends its bytes to the other
	// group's leader and returns what that leader sent.
	swap func(mine []byte) ([]byte, error)
	// m, when set, carries the agreements within the group on on (a
	// non-blocking slot's context of local) instead of local's blocking
	// collectives: CommIdup's, which must not meet the calls outstanding.
	m  *coll.Module
	on *collComm
}

// across gives every rank of this group what the other group's leader
// passed to across, in exchange for what this group's leader passed. An
// error at the leader reaches every rank of the group, so that none waits
// for the leader's broadcast.
func (s side) across(mine []byte) ([]byte, error) {
	var (
		theirs []byte
		err    error
	)
	if s.local.rank == s.leader {
		theirs, err = s.swap(mine)
	}
	if s.m != nil {
		return fromLeaderOn(s.local, func(buf []byte) error { return s.m.Bcast(s.on, buf, s.leader) }, s.leader, theirs, err)
	}
	return s.local.fromLeader(s.leader, theirs, err)
}

// allreduceWords reduces words in place with op over both groups: within
// this group, between the leaders, and back within this group.
func (s side) allreduceWords(words []uint32, op coll.Op) error {
	var err error
	if s.m != nil {
		err = allreduceWordsOn(s.m, s.on, words, op)
	} else {
		err = s.local.allreduceWords(words, op)
	}
	if err != nil {
		return err
	}
	out := putWords(words)
	theirs, err := s.across(out)
	if err != nil {
		return err
	}
	if len(theirs) != len(out) {
		return errorf(ClassIntern, nil, "the remote group's leader sent %d bytes where %d were expected", len(theirs), len(out))
	}
	op.Reduce(theirs, out)
	getWords(out, words)
	return nil
}

// fromLeader broadcasts data, or the error err, from rank leader of c to
// every rank of c, which returns them.
func (c *Comm) fromLeader(leader int, data []byte, err error) ([]byte, error) {
	if c.colls.Bcast == nil {
		return nil, errorf(ClassIntern, coll.ErrNoProvider, "%v: bcast", c)
	}
	return fromLeaderOn(c, func(buf []byte) error {
		c.inOrder()
		if e := c.colls.Bcast(c.cc, buf, leader); e != nil {
			return served(c.colls, "bcast", e)
		}
		return nil
	}, leader, data, err)
}

// swapWith exchanges mine with world rank peer on context cid and tag:
// the send goes first without waiting, so that both leaders may call it
// at once, whatever the lengths.
func (l *library) swapWith(cid uint32, peer, tag int, mine []byte) ([]byte, error) {
	sr := l.engine.Isend(cid, peer, tag, mine, false)
	st, err := l.engine.Probe(cid, peer, tag)
	var theirs []byte
	if err == nil {
		theirs = make([]byte, st.Total)
		var rst pml.Status
		l.engine.Recv(cid, peer, tag, theirs, &rst)
		err = rst.Err
	}
	if serr := l.engine.Wait(sr).Err; err == nil {
		err = serr
	}
	if err != nil {
		return nil, failure(fmt.Sprintf("exchange with world rank %d", peer), err)
	}
	return theirs, nil
}

// IntercommCreate makes an intercommunicator of two disjoint groups, each
// with an intracommunicator of its own (local). Every rank of both groups
// calls it; the leaders (rank localLeader of local, on each side) swap
// their groups over peer, a communicator that holds both, where the other
// leader is rank remoteLeader, with tag. peer, remoteLeader and tag are
// read at the leaders only. The messages go on peer's hidden context:
// they never meet the user's on peer. The local leaders are checked on
// the group's first reduction (leaderRound), so that a bad one at any
// rank fails every rank of the group, and the other group too where the
// group's ranks still agree on their leader.
func (*realAPI) IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const op = "intercomm create"
	l, err := collArgs(op, local)
	if err != nil {
		return nil, err
	}
	if local.inter != nil {
		return nil, local.handle(errorf(ClassComm, nil, "%s: the local communicator %v is an intercommunicator (want an intracommunicator of this side's ranks)", op, local))
	}
	var own error // this rank's fault, which it returns after taking part
	if localLeader < 0 || localLeader >= local.Size() {
		own = errorf(ClassRank, nil, "%s on %v: local leader %d is out of range (0 to %d)", op, local, localLeader, local.Size()-1)
	}
	s := side{local: local, leader: localLeader, swap: func(mine []byte) ([]byte, error) {
		if err := checkPeer(peer, remoteLeader, tag); err != nil {
			return nil, err
		}
		return l.swapWith(peer.context+1, peer.group[remoteLeader], hiddenTag(tag), mine)
	}}
	first := &leaderRound{reduce: local.allreduceWords, across: s.across, swap: s.swap,
		rank: local.rank, leader: localLeader, bad: own != nil, group: local.group}
	id, err := l.agreeContextOver(func(words []uint32, op coll.Op) error {
		if first.remote == nil {
			return first.allreduceWords(words, op)
		}
		return s.allreduceWords(words, op)
	}, true, nil)
	if own != nil {
		return nil, local.handle(own) // the agreement failed, on own's mark
	}
	if err != nil {
		return nil, local.handle(errorf(classOf(err), err, "%s on %v", op, local))
	}
	c, err := l.bridgeInter(local, id, local.Name()+".inter", slices.Clone(local.group), first.remote)
	if err != nil {
		return nil, local.handle(errorf(classOf(err), err, "%s on %v", op, local))
	}
	return c, nil
}

// leaderRound is the first reduction of IntercommCreate's context
// agreement, which checks the local leader that each rank of the group
// passed and carries the groups between the leaders: a correct call
// makes no exchange for either.
type leaderRound struct {
	reduce allreducer                        // within this group
	across func(mine []byte) ([]byte, error) // side.across: between the leaders, then to the group
	swap   func(mine []byte) ([]byte, error) // side.swap: the leaders' exchange alone
	rank   int                               // this rank in the group
	leader int                               // the local leader it passed
	bad    bool                              // leader is out of range
	group  []int                             // this group's world ranks
	remote []int                             // the other group's, once crossed
}

// What a group's leader sends the other first: its group's words and
// ranks, or the rank whose local leader was out of range.
const (
	leaderOK  = 0
	leaderBad = 1
)

// allreduceWords is the first reduction. agreeContextOver's first is a
// maximum: so the largest local leader and the largest complement give
// the range of those passed in range, and the largest ^rank marked bad
// names the lowest such rank.
func (r *leaderRound) allreduceWords(words []uint32, op coll.Op) error {
	n := len(words)
	all := append(slices.Clone(words), 0, 0, 0)
	if r.bad {
		all[n+2] = ^uint32(r.rank)
	} else {
		all[n], all[n+1] = uint32(r.leader), ^uint32(r.leader)
	}
	if err := r.reduce(all, op); err != nil {
		return err
	}
	hi, lo, bad := all[n], ^all[n+1], all[n+2]
	switch {
	case bad != 0:
		if all[n+1] != 0 && hi == lo && r.rank == int(hi) {
			// The ranks in range agree on this rank as their leader,
			// whom the other group's leader expects: the mark fails that
			// group too, and taking that leader's message in exchange
			// leaves none over for a later call. A leader whose peer
			// arguments fail reaches no one.
			_, _ = r.swap(putWords([]uint32{leaderBad, ^bad}))
		}
		return leaderInvalid(int(^bad), "local")
	case hi != lo:
		return r.differ(hi, lo)
	}
	copy(words, all[:n])
	out := putWords(words)
	theirs, err := r.across(slices.Concat(putWords([]uint32{leaderOK}), out, encodeRanks(r.group)))
	if err != nil {
		return err
	}
	if len(theirs) == 8 && binary.LittleEndian.Uint32(theirs) == leaderBad {
		return leaderInvalid(int(binary.LittleEndian.Uint32(theirs[4:])), "remote")
	}
	if len(theirs) < 4+len(out)+4 || len(theirs)%4 != 0 || binary.LittleEndian.Uint32(theirs) != leaderOK {
		return errorf(ClassIntern, nil, "the remote group's leader sent %d bytes where a group and %d bytes of agreement were expected", len(theirs), len(out))
	}
	remote := decodeRanks(theirs[4+len(out):])
	if both := shared(r.group, remote); len(both) > 0 {
		return errorf(ClassArg, nil, "world ranks %v are in both the local and the remote group (an intercommunicator's groups must be disjoint)", both)
	}
	op.Reduce(theirs[4:4+len(out)], out)
	getWords(out, words)
	r.remote = remote
	return nil
}

// leaderInvalid is the error, at the other ranks of both groups, of a
// local leader out of range at rank of the whose ("local" or "remote")
// group.
func leaderInvalid(rank int, whose string) error {
	return errorf(ClassArg, nil, "rank %d of the %s group passed an invalid local leader (MPI requires the same valid local leader at every rank of a group; that rank's own error says what is wrong)", rank, whose)
}

// differ names, for the error, the lowest ranks that passed the largest
// and the smallest local leader, hi and lo: one more reduction, which
// only a failing call runs. The other group's leader waits: no rank can
// tell which of the leaders it expects.
func (r *leaderRound) differ(hi, lo uint32) error {
	maxOp, _ := bind(OpMax, Uint32)
	words := make([]uint32, 2) // ^rank where this rank passed each, else 0
	for i, v := range []uint32{hi, lo} {
		if uint32(r.leader) == v { // no rank is marked bad here
			words[i] = ^uint32(r.rank)
		}
	}
	if err := r.reduce(words, maxOp); err != nil {
		return err
	}
	a, va, b, vb := int(^words[0]), hi, int(^words[1]), lo
	if a < b {
		a, va, b, vb = b, vb, a, va
	}
	return errorf(ClassArg, nil, "rank %d of the local group passed local leader %d where rank %d passed %d (MPI requires the same local leader at every rank of a group)", a, va, b, vb)
}

// checkPeer validates what the leader of IntercommCreate alone reads.
// Its errors reach the caller wrapped with the call and the local
// communicator, so they name neither.
func checkPeer(peer *Comm, remoteLeader, tag int) error {
	if peer == nil {
		return errorf(ClassComm, nil, "the peer communicator is nil (the leaders pass one that holds both)")
	}
	if peer.freed.Load() {
		return errorf(ClassComm, nil, "the peer communicator %v was freed", peer)
	}
	if remoteLeader < 0 || remoteLeader >= len(peer.group) {
		return errorf(ClassRank, nil, "remote leader %d is out of range for the peer communicator %v (0 to %d)", remoteLeader, peer, len(peer.group)-1)
	}
	if tag < 0 || tag > TagUB {
		return errorf(ClassTag, nil, "tag %d is out of range for the peer communicator %v (0 to %d)", tag, peer, TagUB)
	}
	return nil
}

// newInter agrees with the other group on a context id free in every
// member of both, makes this group's bridge, and returns the
// intercommunicator of local and remote (world ranks). parent (an
// intracommunicator of this group) carries the agreements within it.
func (l *library) newInter(parent *Comm, s side, name string, local, remote []int) (*Comm, error) {
	id, err := l.agreeContextOver(s.allreduceWords, true, nil)
	if err != nil {
		return nil, err
	}
	return l.bridgeInter(parent, id, name, local, remote)
}

// bridgeInter makes, on context id agreed over both groups, this group's
// bridge and the intercommunicator of local and remote (world ranks);
// it releases id if it fails.
func (l *library) bridgeInter(parent *Comm, id uint32, name string, local, remote []int) (*Comm, error) {
	bid, err := l.agreeContext(parent, true, nil)
	if err != nil {
		l.ctxs.release(id)
		return nil, err
	}
	bridge, err := l.derive(parent, "intercomm bridge", name+".local", local, bid)
	if err != nil {
		l.ctxs.release(id)
		return nil, err
	}
	return l.joinInter(id, name, bridge, remote, parent), nil
}

// joinInter makes the intercommunicator of context id between bridge's
// group and remote (world ranks), with parent's error handler.
func (l *library) joinInter(id uint32, name string, bridge *Comm, remote []int, parent *Comm) *Comm {
	c := &Comm{context: id, group: remote, ranks: make(map[int]int, len(remote)), rank: bridge.rank, lib: l,
		inter: &interPart{local: bridge.group, bridge: bridge}, scope: bridge.scope}
	for i, w := range remote {
		c.ranks[w] = i
	}
	c.name.Store(&name)
	c.errh.Store(parent.errh.Load())
	l.comms.Store(id, c)
	return c
}

// side returns this group's part in agreements over both groups of the
// intercommunicator c: the bridge within, rank 0s between.
func (c *Comm) side() side {
	l := c.lib
	return side{local: c.inter.bridge, leader: 0, swap: func(mine []byte) ([]byte, error) {
		return l.swapWith(c.context+1, c.group[0], tagInterLeaders, mine)
	}}
}

// interDup is CommDup of an intercommunicator: the same groups, a new
// context and bridge.
func (l *library) interDup(c *Comm) (*Comm, error) {
	d, err := l.newInter(c.inter.bridge, c.side(), c.Name()+".dup", slices.Clone(c.inter.local), slices.Clone(c.group))
	if err != nil {
		return nil, c.handle(errorf(classOf(err), err, "comm dup on %v", c))
	}
	// The bridge holds the handler its local communicator had at the
	// start; a copy inherits c's.
	d.errh.Store(c.errh.Load())
	return d, nil
}

// freeInter releases an intercommunicator's bridge; the caller releases c.
func (l *library) freeInter(c *Comm) error { return l.freeHidden(c.inter.bridge) }

// freeHidden releases a communicator the user never saw: a bridge.
func (l *library) freeHidden(b *Comm) error {
	b.freed.Store(true)
	err := b.colls.Free()
	l.comms.CompareAndDelete(b.context, b)
	l.ctxs.release(b.context)
	return err
}

// IntercommMerge makes the intracommunicator of both groups of inter:
// the group whose ranks pass high false first; if both groups pass the
// same, the group whose rank 0 has the lower world rank. Every rank of a
// group passes the same high. The result has a new context and its own
// collectives, as any intracommunicator.
func (*realAPI) IntercommMerge(inter *Comm, high bool) (*Comm, error) {
	const op = "intercomm merge"
	l, err := interArgs(op, inter)
	if err != nil {
		return nil, err
	}
	b := inter.inter.bridge
	var h uint32
	if high {
		h = 1
	}
	// One reduction gives the largest high and, through the complement,
	// the smallest.
	maxOp, _ := bind(OpMax, Uint32)
	words := []uint32{h, ^h}
	if err := b.allreduceWords(words, maxOp); err != nil {
		return nil, inter.handle(errorf(classOf(err), err, "%s on %v", op, inter))
	}
	hi, lo := words[0], ^words[1]
	// Each group tells the other its high and whether its ranks agreed
	// on it, so that both fail alike rather than one waiting.
	mine := []byte{byte(hi), byte(hi ^ lo ^ 1)}
	theirs, err := inter.side().across(mine)
	if err == nil && len(theirs) != 2 {
		err = errorf(ClassIntern, nil, "the remote group's leader sent %d bytes where 2 were expected", len(theirs))
	}
	if err != nil {
		return nil, inter.handle(errorf(classOf(err), err, "%s on %v", op, inter))
	}
	if mine[1] == 0 || theirs[1] == 0 {
		return nil, inter.handle(errorf(ClassArg, nil, "%s on %v: the ranks of one group passed different values of high (every rank of a group passes the same)", op, inter))
	}
	local, remote := inter.inter.local, inter.group
	first := mine[0] < theirs[0] || (mine[0] == theirs[0] && local[0] < remote[0])
	group := slices.Concat(remote, local)
	if first {
		group = slices.Concat(local, remote)
	}
	id, err := l.agreeContextOver(inter.side().allreduceWords, true, nil)
	if err != nil {
		return nil, inter.handle(errorf(classOf(err), err, "%s on %v", op, inter))
	}
	c, err := l.derive(b, op, inter.Name()+".merge", group, id)
	if err != nil {
		return nil, inter.handle(err)
	}
	c.errh.Store(inter.errh.Load())
	return c, nil
}

// interArgs checks what every call on an intercommunicator needs.
func interArgs(op string, comm *Comm) (*library, error) {
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	if comm.inter == nil {
		return nil, comm.handle(errorf(ClassComm, nil, "%s: %v is an intracommunicator (want an intercommunicator)", op, comm))
	}
	return l, nil
}

// errNotIntra is the error of a call that MPI defines on
// intracommunicators only.
func errNotIntra(op string, comm *Comm) error {
	return comm.handle(errorf(ClassComm, nil, "%s on %v: MPI defines it on intracommunicators only, and this is an intercommunicator (merge it with IntercommMerge first)", op, comm))
}

// CommTestInter reports whether comm is an intercommunicator.
func (*realAPI) CommTestInter(comm *Comm) (bool, error) {
	if err := checkComm("comm test inter", comm); err != nil {
		return false, err
	}
	return comm.inter != nil, nil
}

// CommRemoteSize returns the size of an intercommunicator's remote group.
func (*realAPI) CommRemoteSize(comm *Comm) (int, error) {
	if _, err := interArgs("comm remote size", comm); err != nil {
		return 0, err
	}
	return len(comm.group), nil
}

// CommRemoteGroup returns an intercommunicator's remote group.
func (*realAPI) CommRemoteGroup(comm *Comm) (*Group, error) {
	l, err := interArgs("comm remote group", comm)
	if err != nil {
		return nil, err
	}
	return &Group{ranks: slices.Clone(comm.group), me: l.job.Rank, scope: comm.scope}, nil
}

// compareInter is CommCompare when a or b is an intercommunicator:
// Congruent if both groups match in order, Similar if both hold the same
// members, else Unequal (as between an inter- and an intracommunicator).
func compareInter(a, b *Comm) Comparison {
	if a.inter == nil || b.inter == nil {
		return Unequal
	}
	switch l, r := compareRanks(a.inter.local, b.inter.local), compareRanks(a.group, b.group); {
	case l == Ident && r == Ident:
		return Congruent
	case l != Unequal && r != Unequal:
		return Similar
	}
	return Unequal
}

func encodeRanks(ranks []int) []byte {
	b := make([]byte, 4*len(ranks))
	for i, r := range ranks {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(r))
	}
	return b
}

func decodeRanks(b []byte) []int {
	ranks := make([]int, len(b)/4)
	for i := range ranks {
		ranks[i] = int(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return ranks
}

// shared lists the members of a that are also in b.
func shared(a, b []int) []int {
	var both []int
	for _, w := range a {
		if slices.Contains(b, w) {
			both = append(both, w)
		}
	}
	return both
}
