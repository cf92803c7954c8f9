package pmpi

// Bcast sends count elements of dt in buf from root to every rank; on an
// intercommunicator, to every rank of the root's remote group (see Root).
func (*realAPI) Bcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	return bcastCall(nil, buf, count, dt, root, comm)
}

// bcastCall is Bcast, blocking when s is nil, else started as s says.
func bcastCall(s *collStart, buf []byte, count int, dt Datatype, root int, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interBcast(s, buf, count, dt, root, comm)
	}
	k, err := startColl(s, &nameBcast, comm)
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
	return k.run(s, &collOp{kind: collBcast, recv: data, root: root})
}
