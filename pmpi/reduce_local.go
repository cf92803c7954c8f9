package pmpi

// ReduceLocal combines count elements of dt in in and inout with op and
// leaves the result in inout (MPI_Reduce_local): inout becomes in op
// inout, in as the lower rank's operand. No message moves; errors go to
// the handler of CommSelf.
func (*realAPI) ReduceLocal(in, inout []byte, count int, dt Datatype, op Op) error {
	const name = "reduce local"
	l, err := running(name)
	if err != nil {
		return err
	}
	k := collCall{op: name, comm: l.self, t: l.self.colls}
	o, err := k.bind(op, dt)
	if err == nil {
		err = k.records("count", count, dt, op)
	}
	if err != nil {
		return err
	}
	src, err := k.data("send", in, count, dt)
	if err != nil {
		return err
	}
	dst, err := k.data("", inout, count, dt)
	if err != nil {
		k.unpackAll(false)
		return err
	}
	if err := k.separate(src, dst); err != nil {
		k.unpackAll(false)
		return err
	}
	o.Reduce(src, dst)
	return k.done(nil)
}
