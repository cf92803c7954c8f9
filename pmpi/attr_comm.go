package pmpi

import "errors"

// commExt is what a communicator caches for its user: attributes and
// info hints.
type commExt struct {
	attrs attrSet
	hints hintSet
}

// CommCreateKeyval makes a keyval for communicator attributes
// (MPI_Comm_create_keyval). A nil copy means CommNullCopyFn, a nil del
// CommNullDeleteFn; extra is passed to both.
func (*realAPI) CommCreateKeyval(copy CommCopyAttrFunc, del CommDeleteAttrFunc, extra any) (Keyval, error) {
	kv := newKeyval(commAttr, extra)
	kv.k.commCopy, kv.k.commDel = copy, del
	if copy == nil {
		kv.k.commCopy = CommNullCopyFn
	}
	if del == nil {
		kv.k.commDel = CommNullDeleteFn
	}
	return kv, nil
}

// CommFreeKeyval frees *kv and sets it to the invalid Keyval
// (MPI_Comm_free_keyval). Attributes set with it stay, and their
// callbacks still run, until each is deleted.
func (*realAPI) CommFreeKeyval(kv *Keyval) error {
	return freeKeyval("comm free keyval", kv, commAttr)
}

// CommSetAttr caches value on comm under kv (MPI_Comm_set_attr),
// deleting the value it replaces first: if that delete callback fails,
// the old value stays and the call fails.
func (*realAPI) CommSetAttr(comm *Comm, kv Keyval, value any) error {
	const op = "comm set attr"
	k, err := commAttrArgs(op, comm, kv, false)
	if err != nil {
		return err
	}
	if k.builtin != nil {
		return comm.handle(errorf(ClassKeyval, nil, "%s on %v: %v is predefined and cannot be set", op, comm, k))
	}
	if comm.ext.attrs.closing() {
		return comm.handle(errorf(ClassArg, nil, "%s on %v: its attributes are being deleted, as it is freed (a delete callback may not set one)", op, comm))
	}
	return comm.handle(comm.ext.attrs.set(k, value, comm.deleter(op)))
}

// CommGetAttr returns the value cached on comm under kv, and whether
// there is one (MPI_Comm_get_attr). The predefined keyvals (AttrTagUB...)
// answer on every communicator.
func (*realAPI) CommGetAttr(comm *Comm, kv Keyval) (any, bool, error) {
	k, err := commAttrArgs("comm get attr", comm, kv, true)
	if err != nil {
		return nil, false, err
	}
	if k.builtin != nil {
		return k.builtin(comm), true, nil
	}
	v, ok := comm.ext.attrs.get(k)
	return v, ok, nil
}

// CommDeleteAttr deletes the value cached on comm under kv, running its
// delete callback (MPI_Comm_delete_attr). If the callback fails, the
// value stays and the call fails; if there is no value, the call fails.
func (*realAPI) CommDeleteAttr(comm *Comm, kv Keyval) error {
	const op = "comm delete attr"
	k, err := commAttrArgs(op, comm, kv, true)
	if err != nil {
		return err
	}
	if k.builtin != nil {
		return comm.handle(errorf(ClassKeyval, nil, "%s on %v: %v is predefined and cannot be deleted", op, comm, k))
	}
	had, err := comm.ext.attrs.remove(k, comm.deleter(op))
	if err == nil && !had {
		err = errorf(ClassArg, nil, "%s on %v: no attribute is set under %v", op, comm, k)
	}
	return comm.handle(err)
}

// commAttrArgs checks an attribute call's communicator and keyval.
func commAttrArgs(op string, comm *Comm, kv Keyval, lookup bool) (*keyval, error) {
	if err := checkComm(op, comm); err != nil {
		return nil, err
	}
	k, err := kv.checkFor(op+" on "+comm.String(), commAttr, lookup)
	return k, comm.handle(err)
}

// deleter runs an entry's delete callback on c, op naming the call in
// its error.
func (c *Comm) deleter(op string) func(attrEntry) error {
	return func(e attrEntry) error {
		if err := e.k.commDel(c, Keyval{e.k}, e.value, e.k.extra); err != nil {
			return errorf(classOf(err), err, "%s on %v: the delete callback of %v failed", op, c, e.k)
		}
		return nil
	}
}

// dupExt gives c, just made by CommDup from old, old's hints and the
// attributes old's copy callbacks return. If a copy callback fails,
// the values c already got are deleted and c is released.
func (l *library) dupExt(old, c *Comm) error {
	c.ext.hints.copyFrom(&old.ext.hints)
	c.applyHints()
	if err := copyAttrs("comm dup", old, c); err != nil {
		c.freed.Store(true)
		return errors.Join(err, l.release(c))
	}
	return nil
}

// copyAttrs gives c the attributes old's copy callbacks return, in the
// order they were set, op naming the call in errors. If a callback fails,
// the values c already got are deleted and its error is returned.
func copyAttrs(op string, old, c *Comm) error {
	copyAttr := func(e attrEntry) (any, bool, error) {
		v, ok, err := e.k.commCopy(old, Keyval{e.k}, e.value, e.k.extra)
		if err != nil {
			return nil, false, errorf(classOf(err), err, "%s on %v: the copy callback of %v failed", op, old, e.k)
		}
		return v, ok, nil
	}
	return old.ext.attrs.copyTo(&c.ext.attrs, copyAttr, c.deleter(op))
}

// freeExt deletes comm's attributes before CommFree releases it: the
// last set first, stopping at a failing delete callback, whose error
// fails the Free and leaves comm valid.
func (c *Comm) freeExt() error {
	return c.ext.attrs.removeAll(c.deleter("comm free"))
}
