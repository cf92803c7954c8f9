package mpi

import "github.com/gompi/gompi/pmpi"

// An intercommunicator joins two disjoint groups of ranks. Its
// point-to-point calls name ranks of the other (remote) group: Send's
// dest, Recv's source and Status.Source are remote ranks, and AnySource
// matches any of them. Rank and Size are the local group's; RemoteSize
// and RemoteGroup describe the other. Barrier, Bcast and Allreduce run on
// it as MPI defines them between the two groups; the other collectives
// fail with ErrComm: they run on the intracommunicator that Merge makes
// of both groups.

// Root is the root of Bcast on an intercommunicator, at the root itself
// (MPI_ROOT): the other ranks of its group pass ProcNull, and the ranks of
// the other group pass the root's rank in its group. They receive; the
// root's group does not.
const Root = pmpi.Root

// IntercommCreate makes an intercommunicator of this rank's group (the
// ranks of local) and another, disjoint group. Every rank of both groups
// calls it. Each group names a leader, rank localLeader of its local;
// the leaders swap their groups over peer, a communicator that holds
// both (world, typically), in which the other leader is rank
// remoteLeader, with tag. peer, remoteLeader and tag are read at the
// leaders only (the others may pass a null Comm); the leaders' messages
// never meet the user's on peer. Groups that share a rank fail with
// ErrArg, naming the shared world ranks.
func IntercommCreate(local Comm, localLeader int, peer Comm, remoteLeader, tag int) (Comm, error) {
	c, err := api().IntercommCreate(local.c, localLeader, peer.c, remoteLeader, tag)
	return Comm{c}, err
}

// Merge makes the intracommunicator of both groups of the
// intercommunicator c: the group whose ranks pass high false comes first;
// if both groups pass the same, the group whose rank 0 has the lower rank
// in CommWorld does. Every rank of a group passes the same high. The
// result has collectives of its own, as any intracommunicator.
func (c Comm) Merge(high bool) (Comm, error) {
	m, err := api().IntercommMerge(c.c, high)
	return Comm{m}, err
}

// TestInter reports whether c is an intercommunicator; false for an
// invalid one.
func (c Comm) TestInter() bool {
	ok, err := api().CommTestInter(c.c)
	return ok && err == nil
}

// RemoteSize is the size of the remote group of the intercommunicator
// c, or 0 for an intracommunicator or an invalid one.
func (c Comm) RemoteSize() int {
	n, err := api().CommRemoteSize(c.c)
	if err != nil {
		return 0
	}
	return n
}

// RemoteGroup returns the remote group of the intercommunicator c; an
// intracommunicator gives ErrComm.
func (c Comm) RemoteGroup() (Group, error) {
	g, err := api().CommRemoteGroup(c.c)
	return Group{g}, err
}

// CreateGroup makes a communicator of g, a group of c's ranks, in g's
// order. Only the members of g call it: the other ranks of c go on with
// their own work meanwhile. The members agree among themselves with
// messages on c tagged with tag, which never meet the user's; calls that
// run at once on c among the same ranks need different tags. A rank
// outside g that calls it (with an empty group, say) gets a null Comm, as
// MPI says.
func (c Comm) CreateGroup(g Group, tag int) (Comm, error) {
	d, err := api().CommCreateGroup(c.c, g.g, tag)
	return Comm{d}, err
}
