package pmpi

// Bcast sends count elements of dt in buf from root to every rank; on an
// intercommunicator, to every rank of the root's remote group (see Root).
func (*realAPI) Bcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interBcast(buf, count, dt, root, comm)
	}
	k, err := startColl("bcast", comm)
	if err != nil {
		return err
	}
	if err := k.root(root); err != nil {
		return err
	}
	data, err := k.data("", buf, count, dt)
	if err != nil {
		return err
	}
	if k.t.Bcast == nil {
		return k.missing()
	}
	return k.done(k.t.Bcast(comm.cc, data, root))
}
