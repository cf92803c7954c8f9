package pmpi

import "slices"

// interSplit is CommSplit of an intercommunicator: each group splits by
// color and key as an intracommunicator would, and the parts of one color
// in the two groups make an intercommunicator. A rank whose color is
// Undefined, or one that the other group passes no rank of, gets none
// (nil), as MPI says. types is as for split; both groups check the colors
// of both, so that a bad one fails every rank of the two.
func (l *library) interSplit(comm *Comm, op, suffix string, color, key int, types bool) (*Comm, error) {
	b := comm.inter.bridge
	all, err := gatherColors(b, op, color, key)
	var theirs []byte
	if err == nil {
		// Every rank learns the other group's colors and keys too, so that
		// both sides of a color agree on who has a partner.
		theirs, err = comm.side().across(all)
	}
	if n := len(comm.group); err == nil && len(theirs) != 16*n {
		err = errorf(ClassIntern, nil, "the remote group's leader sent %d bytes of colors and keys for its %d ranks (want %d)",
			len(theirs), n, 16*n)
	}
	if err != nil {
		return nil, comm.handle(errorf(classOf(err), err, "%s on %v", op, comm))
	}
	if bad := badColors(theirs, " of the remote group", types, badColors(all, " of the local group", types, nil)); len(bad) > 0 {
		return nil, comm.handle(colorsError(op, comm, bad, types))
	}
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

// interCreate is CommCreate of an intercommunicator: group, a subgroup of
// this rank's local group that its ranks pass alike, faces the subgroup
// the other group's ranks pass. Ranks outside group, and every rank when
// either subgroup is empty, get none (nil).
func (l *library) interCreate(comm *Comm, group *Group) (*Comm, error) {
	const op = "comm create"
	for _, w := range group.ranks {
		if !slices.Contains(comm.inter.local, w) {
			return nil, comm.handle(errorf(ClassGroup, nil, "%s on %v: world rank %d of the group is not in the local group (an intercommunicator's group is a subgroup of the caller's own)",
				op, comm, w))
		}
	}
	color, key := Undefined, 0
	if i := slices.Index(group.ranks, l.job.Rank); i >= 0 {
		color, key = 0, i // the group's order
	}
	return l.interSplit(comm, op, ".create", color, key, false)
}
