package trace

import "github.com/gompi/gompi/pmpi"

// made records a call that makes a communicator from parent: it takes the
// next id derived from parent, whether or not this rank is in the result.
func (t *Tracer) made(sp span, name string, parent, c *pmpi.Comm, err error) {
	a := t.commArgs(sp, parent).withErr(err)
	if parent != nil {
		t.mu.Lock()
		id := t.m.derive(parent)
		if c != nil {
			t.m.name(c, id)
		}
		t.mu.Unlock()
		a = a.withLabel(id)
	}
	t.end(sp, name, a)
}

// making records a call that makes a communicator from parent, call,
// and names the new communicator: what every such method does.
func (t *Tracer) making(name string, parent *pmpi.Comm, call func() (*pmpi.Comm, error)) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := call()
	sp = t.stop(sp)
	t.made(sp, name, parent, c, err)
	return c, err
}

// CommDup records MPI_CommDup and names the new communicator.
func (t *Tracer) CommDup(comm *pmpi.Comm) (*pmpi.Comm, error) {
	return t.making("MPI_CommDup", comm, func() (*pmpi.Comm, error) { return t.Next.CommDup(comm) })
}

// CommSplit records MPI_CommSplit and names the new communicator.
func (t *Tracer) CommSplit(comm *pmpi.Comm, color, key int) (*pmpi.Comm, error) {
	return t.making("MPI_CommSplit", comm, func() (*pmpi.Comm, error) { return t.Next.CommSplit(comm, color, key) })
}

// CommSplitType records MPI_CommSplitType and names the new communicator.
func (t *Tracer) CommSplitType(comm *pmpi.Comm, splitType, key int) (*pmpi.Comm, error) {
	return t.making("MPI_CommSplitType", comm, func() (*pmpi.Comm, error) { return t.Next.CommSplitType(comm, splitType, key) })
}

// CommCreate records MPI_CommCreate and names the new communicator.
func (t *Tracer) CommCreate(comm *pmpi.Comm, group *pmpi.Group) (*pmpi.Comm, error) {
	return t.making("MPI_CommCreate", comm, func() (*pmpi.Comm, error) { return t.Next.CommCreate(comm, group) })
}

// CartCreate records MPI_CartCreate and names the new communicator.
func (t *Tracer) CartCreate(comm *pmpi.Comm, dims []int, periods []bool, reorder bool) (*pmpi.Comm, error) {
	return t.making("MPI_CartCreate", comm, func() (*pmpi.Comm, error) { return t.Next.CartCreate(comm, dims, periods, reorder) })
}

// CartSub records MPI_CartSub and names the new communicator.
func (t *Tracer) CartSub(comm *pmpi.Comm, remain []bool) (*pmpi.Comm, error) {
	return t.making("MPI_CartSub", comm, func() (*pmpi.Comm, error) { return t.Next.CartSub(comm, remain) })
}

// GraphCreate records MPI_GraphCreate and names the new communicator.
func (t *Tracer) GraphCreate(comm *pmpi.Comm, index, edges []int, reorder bool) (*pmpi.Comm, error) {
	return t.making("MPI_GraphCreate", comm, func() (*pmpi.Comm, error) { return t.Next.GraphCreate(comm, index, edges, reorder) })
}

// DistGraphCreateAdjacent records MPI_DistGraphCreateAdjacent and names
// the new communicator.
func (t *Tracer) DistGraphCreateAdjacent(comm *pmpi.Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*pmpi.Comm, error) {
	return t.making("MPI_DistGraphCreateAdjacent", comm, func() (*pmpi.Comm, error) {
		return t.Next.DistGraphCreateAdjacent(comm, sources, sourceWeights, dests, destWeights, reorder)
	})
}

// DistGraphCreate records MPI_DistGraphCreate and names the new
// communicator.
func (t *Tracer) DistGraphCreate(comm *pmpi.Comm, sources, degrees, dests, weights []int, reorder bool) (*pmpi.Comm, error) {
	return t.making("MPI_DistGraphCreate", comm, func() (*pmpi.Comm, error) {
		return t.Next.DistGraphCreate(comm, sources, degrees, dests, weights, reorder)
	})
}

// CommFree records MPI_CommFree and forgets the communicator.
func (t *Tracer) CommFree(comm *pmpi.Comm) error {
	return t.freeing("MPI_CommFree", comm, t.Next.CommFree)
}

// CommDisconnect records MPI_CommDisconnect and forgets the communicator.
func (t *Tracer) CommDisconnect(comm *pmpi.Comm) error {
	return t.freeing("MPI_CommDisconnect", comm, t.Next.CommDisconnect)
}

func (t *Tracer) freeing(name string, comm *pmpi.Comm, next func(*pmpi.Comm) error) error {
	sp := t.begin()
	a := t.commArgs(sp, comm)
	err := next(comm)
	sp = t.stop(sp)
	if err == nil {
		t.mu.Lock()
		t.m.forget(comm)
		t.mu.Unlock()
	}
	t.end(sp, name, a.withErr(err))
	return err
}

// CommIdup records MPI_CommIdup and names the new communicator.
func (t *Tracer) CommIdup(comm *pmpi.Comm) (*pmpi.Comm, *pmpi.Request, error) {
	var r *pmpi.Request
	c, err := t.making("MPI_CommIdup", comm, func() (c *pmpi.Comm, err error) {
		c, r, err = t.Next.CommIdup(comm)
		return c, err
	})
	return c, r, err
}

// CommIdupWithInfo records MPI_CommIdupWithInfo and names the new
// communicator.
func (t *Tracer) CommIdupWithInfo(comm *pmpi.Comm, info *pmpi.Info) (*pmpi.Comm, *pmpi.Request, error) {
	var r *pmpi.Request
	c, err := t.making("MPI_CommIdupWithInfo", comm, func() (c *pmpi.Comm, err error) {
		c, r, err = t.Next.CommIdupWithInfo(comm, info)
		return c, err
	})
	return c, r, err
}

// IntercommMerge records MPI_IntercommMerge and names the new
// communicator: both groups call it on the intercommunicator, whose id
// they share.
func (t *Tracer) IntercommMerge(inter *pmpi.Comm, high bool) (*pmpi.Comm, error) {
	return t.making("MPI_IntercommMerge", inter, func() (*pmpi.Comm, error) { return t.Next.IntercommMerge(inter, high) })
}

// IntercommCreate records MPI_IntercommCreate and names the new
// intercommunicator after its two groups.
func (t *Tracer) IntercommCreate(local *pmpi.Comm, localLeader int, peer *pmpi.Comm, remoteLeader, tag int) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.IntercommCreate(local, localLeader, peer, remoteLeader, tag)
	sp = t.stop(sp)
	a := t.commArgs(sp, local).withErr(err)
	if c != nil && local != nil {
		t.mu.Lock()
		id := t.m.deriveInter(local, c)
		t.m.name(c, id)
		t.mu.Unlock()
		a = a.withLabel(id)
	}
	t.end(sp, "MPI_IntercommCreate", a)
	return c, err
}

// CommCreateGroup records MPI_CommCreateGroup and names the new
// communicator after its members and tag: the parent's other ranks do
// not call it.
func (t *Tracer) CommCreateGroup(comm *pmpi.Comm, group *pmpi.Group, tag int) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.CommCreateGroup(comm, group, tag)
	sp = t.stop(sp)
	a := t.commArgs(sp, comm).withErr(err)
	if c != nil && comm != nil {
		t.mu.Lock()
		id := t.m.deriveGroup(comm, c, tag)
		t.m.name(c, id)
		t.mu.Unlock()
		a = a.withLabel(id)
	}
	t.end(sp, "MPI_CommCreateGroup", a)
	return c, err
}
