package pmpi

import (
	"encoding/binary"
	"slices"
)

// interSplit is CommSplit of an intercommunicator: each group splits by
// color and key as an intracommunicator would, and the parts of one color
// in the two groups make an intercommunicator. A rank whose color is
// Undefined, or one that the other group passes no rank of, gets none
// (nil), as MPI says. check is as for split; both groups check the
// colors of both, so that a bad one fails every rank of the two.
func (l *library) interSplit(comm *Comm, op, suffix string, color, key int, check splitCheck) (*Comm, error) {
	all, theirs, err := gatherBoth(comm, op, colorOf(color, key, 0))
	if err != nil {
		return nil, comm.handle(err)
	}
	if bad := badColors(theirs, " of the remote group", check, badColors(all, " of the local group", check, nil)); len(bad) > 0 {
		return nil, comm.handle(colorsError(op, comm, bad, check))
	}
	return l.interSplitBy(comm, op, suffix, color, all, theirs)
}

// gatherBoth returns every rank's record (mine at this rank, of one
// length at every rank of both groups) in comm's local group (all) and in
// its remote group (theirs), by rank; the error is not handled yet.
func gatherBoth(comm *Comm, op string, mine []byte) (all, theirs []byte, err error) {
	all, err = gatherRecords(comm.inter.bridge, op, mine)
	if err == nil {
		// Every rank learns the other group's records too, so that both
		// sides of a color agree on who has a partner.
		theirs, err = comm.side().across(all)
	}
	if n := len(comm.group); err == nil && len(theirs) != len(mine)*n {
		err = errorf(ClassIntern, nil, "the remote group's leader sent %d bytes of colors and keys for its %d ranks (want %d)",
			len(theirs), n, len(mine)*n)
	}
	if err != nil {
		return nil, nil, errorf(classOf(err), err, "%s on %v", op, comm)
	}
	return all, theirs, nil
}

// interSplitBy makes this rank's part of comm, whose local and remote
// ranks' colors and keys are all and theirs (colorOf's records, by rank).
func (l *library) interSplitBy(comm *Comm, op, suffix string, color int, all, theirs []byte) (*Comm, error) {
	b := comm.inter.bridge
	name := comm.Name() + suffix
	part, err := l.splitBy(b, op, name+".local", color, all)
	if err != nil || part == nil {
		return nil, comm.handle(err)
	}
	remote := membersOf(theirs, color, comm.group)
	if len(remote) == 0 {
		return nil, comm.handle(l.freeHidden(part))
	}
	// The parts' leaders meet on comm's collective context: each pair of
	// them is a pair of processes of its own.
	s := side{local: part, leader: 0, swap: func(mine []byte) ([]byte, error) {
		return l.swapWith(comm.context+1, remote[0], tagInterLeaders, mine)
	}}
	id, err := l.agreeContextOver(s.allreduceWords, true, nil)
	if err != nil {
		_ = l.freeHidden(part)
		return nil, comm.handle(errorf(classOf(err), err, "%s on %v", op, comm))
	}
	return l.joinInter(id, name, part, remote, comm), nil
}

// createRecord is a rank's record in an intercommunicator's CommCreate:
// its color and key, and the digest of the subgroup it passed.
const createRecord = colorRecord + 8

// interCreate is CommCreate of an intercommunicator: group, a subgroup of
// this rank's local group that its ranks pass alike, faces the subgroup
// the other group's ranks pass. Ranks outside group, and every rank when
// either subgroup is empty, get none (nil). The split's exchange carries
// a digest of each rank's subgroup, and a mark for a rank whose group
// failed its checks (own, not handled yet), so that a fault at any rank
// fails every rank of both groups.
func (l *library) interCreate(comm *Comm, group *Group, own error) (*Comm, error) {
	const op = "comm create"
	if own == nil {
		for _, w := range group.ranks {
			if !slices.Contains(comm.inter.local, w) {
				own = errorf(ClassGroup, nil, "%s on %v: world rank %d of the group is not in the local group (an intercommunicator's group is a subgroup of the caller's own)",
					op, comm, w)
				break
			}
		}
	}
	color, key := badArgs, 0
	var digest uint64
	if own == nil {
		color = Undefined
		if i := slices.Index(group.ranks, l.job.Rank); i >= 0 {
			color, key = 0, i // the group's order
		}
		digest = (&sameGroup{group: group.ranks}).digest()
	}
	all, theirs, err := gatherBoth(comm, op, binary.LittleEndian.AppendUint64(colorOf(color, key, 8), digest))
	if err == nil {
		err = subgroupsError(op, comm, all, theirs)
		if err != nil && own != nil {
			err = own // this rank's fault, which the others name
		}
	}
	if err != nil {
		return nil, comm.handle(err)
	}
	return l.interSplitBy(comm, op, ".create", color, colorsOnly(all, createRecord), colorsOnly(theirs, createRecord))
}

// subgroupsError is the error of an intercommunicator's CommCreate whose
// records (createRecord, of the local and the remote group) show a rank
// whose group failed its checks, or two ranks of one group that passed
// different subgroups; nil if they show neither.
func subgroupsError(op string, comm *Comm, all, theirs []byte) error {
	const want = "MPI requires the ranks of each group to pass the same subgroup of their own group"
	groups := []struct {
		recs  []byte
		whose string
	}{{all, "local"}, {theirs, "remote"}}
	for _, g := range groups {
		for r := range len(g.recs) / createRecord {
			if int64(binary.LittleEndian.Uint64(g.recs[createRecord*r:])) == badArgs {
				return errorf(ClassArg, nil, "%s on %v: rank %d of the %s group passed an invalid group (%s; that rank's own error says what is wrong)", op, comm, r, g.whose, want)
			}
		}
	}
	for _, g := range groups {
		digest := func(r int) uint64 { return binary.LittleEndian.Uint64(g.recs[createRecord*r+colorRecord:]) }
		for r := 1; r < len(g.recs)/createRecord; r++ {
			if digest(r) != digest(0) {
				return errorf(ClassArg, nil, "%s on %v: ranks 0 and %d of the %s group passed different groups (%s)", op, comm, r, g.whose, want)
			}
		}
	}
	return nil
}

// colorsOnly is the colors and keys of records of size bytes that begin
// with them, as a split gathers them.
func colorsOnly(recs []byte, size int) []byte {
	out := make([]byte, 0, len(recs)/size*colorRecord)
	for off := 0; off < len(recs); off += size {
		out = append(out, recs[off:off+colorRecord]...)
	}
	return out
}
