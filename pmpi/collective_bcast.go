package pmpi

// Bcast sends count elements of dt in buf from root to every rank.
func (*realAPI) Bcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error {
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
