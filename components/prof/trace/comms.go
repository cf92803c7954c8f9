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

// CommDup records MPI_CommDup and names the new communicator.
func (t *Tracer) CommDup(comm *pmpi.Comm) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.CommDup(comm)
	sp = t.stop(sp)
	t.made(sp, "MPI_CommDup", comm, c, err)
	return c, err
}

// CommSplit records MPI_CommSplit and names the new communicator.
func (t *Tracer) CommSplit(comm *pmpi.Comm, color, key int) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.CommSplit(comm, color, key)
	sp = t.stop(sp)
	t.made(sp, "MPI_CommSplit", comm, c, err)
	return c, err
}

// CommSplitType records MPI_CommSplitType and names the new communicator.
func (t *Tracer) CommSplitType(comm *pmpi.Comm, splitType, key int) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.CommSplitType(comm, splitType, key)
	sp = t.stop(sp)
	t.made(sp, "MPI_CommSplitType", comm, c, err)
	return c, err
}

// CommCreate records MPI_CommCreate and names the new communicator.
func (t *Tracer) CommCreate(comm *pmpi.Comm, group *pmpi.Group) (*pmpi.Comm, error) {
	sp := t.begin()
	c, err := t.Next.CommCreate(comm, group)
	sp = t.stop(sp)
	t.made(sp, "MPI_CommCreate", comm, c, err)
	return c, err
}

// CommFree records MPI_CommFree and forgets the communicator.
func (t *Tracer) CommFree(comm *pmpi.Comm) error {
	sp := t.begin()
	a := t.commArgs(sp, comm)
	err := t.Next.CommFree(comm)
	sp = t.stop(sp)
	if err == nil {
		t.mu.Lock()
		t.m.forget(comm)
		t.mu.Unlock()
	}
	t.end(sp, "MPI_CommFree", a.withErr(err))
	return err
}
