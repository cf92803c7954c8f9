package pmpi

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/internal/pml"
)

// CommCreateGroup makes a communicator of group, a subset of comm's
// ranks, in group's order. Only the members of group call it: the others
// go on with their own work, or call it with a group they are not in (an
// empty one) and get a nil communicator. The members agree on a context
// id among themselves with messages on comm's hidden context, tagged
// after tag: they never meet the user's messages, and calls with
// different tags may run at once on comm.
func (*realAPI) CommCreateGroup(comm *Comm, group *Group, tag int) (*Comm, error) {
	const op = "comm create group"
	l, err := collArgs(op, comm)
	if err != nil {
		return nil, err
	}
	if comm.inter != nil {
		return nil, errNotIntra(op, comm)
	}
	// Without a group this rank knows no members, and without a valid
	// tag no channel the members listen on: it fails alone.
	if err := checkGroup(op, group); err != nil {
		return nil, comm.handle(err)
	}
	if err := comm.checkTag(op, tag, false); err != nil {
		return nil, comm.handle(err)
	}
	// A member whose group holds ranks outside comm still takes part,
	// with a mark, over the members of its group that are in comm: there
	// it meets the others where their group is that part, and members
	// that all pass the same such group meet each other.
	var own error
	ranks := group.ranks
	outside := func(w int) bool { _, ok := comm.rankOf(w); return !ok }
	if i := slices.IndexFunc(ranks, outside); i >= 0 {
		own = errorf(ClassGroup, nil, "%s on %v: world rank %d of the group is not in the communicator", op, comm, ranks[i])
		ranks = slices.DeleteFunc(slices.Clone(ranks), outside)
	}
	me := slices.Index(ranks, l.job.Rank)
	if me < 0 {
		if own != nil {
			return nil, comm.handle(own)
		}
		return nil, nil // MPI_GROUP_EMPTY, say: MPI gives the null communicator
	}
	m := members{l: l, cid: comm.context + 1, tag: hiddenTag(tag), ranks: ranks, me: me}
	id, err := l.agreeContextOver(m.allreduceWords, own == nil, &sameGroup{group: ranks, rank: comm.rank, bad: own != nil})
	if own != nil {
		return nil, comm.handle(own) // the agreement failed, on own's mark
	}
	if err != nil {
		return nil, comm.handle(agreeError(op, comm, sameArgs{names: "group", alike: true}, err))
	}
	c, err := l.derive(comm, op, comm.Name()+".create_group", slices.Clone(group.ranks), id)
	if c != nil && group.scope != nil {
		c.scope = group.scope // a session's group makes a communicator of that session
	}
	return c, comm.handle(err)
}

// members are the processes of a group that is no communicator yet,
// talking on context cid with tag.
type members struct {
	l     *library
	cid   uint32
	tag   int
	ranks []int // world ranks
	me    int   // index in ranks
}

// allreduceWords reduces words in place over the members: up a binomial
// tree to member 0 and back down it. A member receives only from its
// children on the way up and from its parent on the way down, so that the
// two phases, and successive calls, never take each other's messages.
func (m members) allreduceWords(words []uint32, op coll.Op) error {
	mine, in := putWords(words), make([]byte, 4*len(words))
	n := len(m.ranks)
	mask := 1
	for ; mask < n; mask <<= 1 {
		if m.me&mask != 0 {
			if err := m.send(mine, m.me-mask); err != nil {
				return err
			}
			if err := m.recv(mine, m.me-mask); err != nil {
				return err
			}
			break
		}
		if m.me+mask < n {
			if err := m.recv(in, m.me+mask); err != nil {
				return err
			}
			op.Reduce(in, mine)
		}
	}
	// Down: to each child, in the reverse order of the way up.
	for mask >>= 1; mask > 0; mask >>= 1 {
		if m.me+mask < n && m.me&mask == 0 {
			if err := m.send(mine, m.me+mask); err != nil {
				return err
			}
		}
	}
	getWords(mine, words)
	return nil
}

func (m members) send(buf []byte, to int) error {
	if err := m.l.engine.Send(m.cid, m.ranks[to], m.tag, buf, false); err != nil {
		return failure(fmt.Sprintf("send to member %d (world rank %d) of the group", to, m.ranks[to]), err)
	}
	return nil
}

func (m members) recv(buf []byte, from int) error {
	var st pml.Status
	m.l.engine.Recv(m.cid, m.ranks[from], m.tag, buf, &st)
	switch {
	case st.Err != nil:
		return failure(fmt.Sprintf("recv from member %d (world rank %d) of the group", from, m.ranks[from]), st.Err)
	case st.Total != len(buf):
		return errorf(ClassIntern, nil, "member %d (world rank %d) of the group sent %d bytes where %d were expected",
			from, m.ranks[from], st.Total, len(buf))
	}
	return nil
}
