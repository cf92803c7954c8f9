package pmpi

import "sync"

// builtinTypeAttrs holds the attributes of the predefined datatypes,
// which have no typeState: like the types themselves, they belong to the
// process.
var builtinTypeAttrs sync.Map // *typeDesc -> *attrSet

// TypeCreateKeyval makes a keyval for datatype attributes
// (MPI_Type_create_keyval). A nil copy means TypeNullCopyFn, a nil del
// TypeNullDeleteFn; extra is passed to both.
func (*realAPI) TypeCreateKeyval(copy TypeCopyAttrFunc, del TypeDeleteAttrFunc, extra any) (Keyval, error) {
	kv := newKeyval(typeAttr, extra)
	kv.k.typeCopy, kv.k.typeDel = copy, del
	if copy == nil {
		kv.k.typeCopy = TypeNullCopyFn
	}
	if del == nil {
		kv.k.typeDel = TypeNullDeleteFn
	}
	return kv, nil
}

// TypeFreeKeyval frees *kv and sets it to the invalid Keyval
// (MPI_Type_free_keyval). Attributes set with it stay, and their
// callbacks still run, until each is deleted.
func (*realAPI) TypeFreeKeyval(kv *Keyval) error {
	return freeKeyval("type free keyval", kv, typeAttr)
}

// TypeSetAttr caches value on dt under kv (MPI_Type_set_attr), deleting
// the value it replaces first: if that delete callback fails, the old
// value stays and the call fails.
func (*realAPI) TypeSetAttr(dt Datatype, kv Keyval, value any) error {
	const op = "type set attr"
	s, k, err := typeAttrArgs(op, dt, kv, false)
	if err != nil {
		return err
	}
	if s.closing() {
		return errorf(ClassArg, nil, "%s on %s: its attributes are being deleted, as it is freed (a delete callback may not set one)", op, dt.Name())
	}
	return s.set(k, value, dt.deleter(op))
}

// TypeGetAttr returns the value cached on dt under kv, and whether there
// is one (MPI_Type_get_attr).
func (*realAPI) TypeGetAttr(dt Datatype, kv Keyval) (any, bool, error) {
	s, k, err := typeAttrArgs("type get attr", dt, kv, true)
	if err != nil {
		return nil, false, err
	}
	v, ok := s.get(k)
	return v, ok, nil
}

// TypeDeleteAttr deletes the value cached on dt under kv, running its
// delete callback (MPI_Type_delete_attr). If the callback fails, the
// value stays and the call fails; if there is no value, the call fails.
func (*realAPI) TypeDeleteAttr(dt Datatype, kv Keyval) error {
	const op = "type delete attr"
	s, k, err := typeAttrArgs(op, dt, kv, true)
	if err != nil {
		return err
	}
	had, err := s.remove(k, dt.deleter(op))
	if err == nil && !had {
		err = errorf(ClassArg, nil, "%s on %s: no attribute is set under %v", op, dt.Name(), k)
	}
	return err
}

// TypeDup returns a copy of dt with the same type map (MPI_Type_dup),
// committed if dt is, and the attributes dt's copy callbacks return. If
// a copy callback fails, the values the copy already got are deleted.
func (*realAPI) TypeDup(dt Datatype) (Datatype, error) {
	const op = "type dup"
	t, err := validType(op, "the datatype", dt)
	if err != nil {
		return Datatype{}, err
	}
	var dup Datatype
	if t.state == nil {
		// A predefined type's copy is derived: one element of it.
		if dup, err = theAPI.TypeContiguous(1, dt); err != nil {
			return Datatype{}, err
		}
		dup.t.name, dup.t.naming = t.name, nil
	} else {
		d := *t
		d.goType, d.state = false, &typeState{}
		dup = Datatype{&d}
	}
	dup.t.state.committed.Store(t.state == nil || t.state.committed.Load())
	copyAttr := func(e attrEntry) (any, bool, error) {
		v, ok, err := e.k.typeCopy(dt, Keyval{e.k}, e.value, e.k.extra)
		if err != nil {
			return nil, false, errorf(classOf(err), err, "%s of %s: the copy callback of %v failed", op, t.typeName(), e.k)
		}
		return v, ok, nil
	}
	if err := dt.attrSet().copyTo(&dup.t.state.attrs, copyAttr, dup.deleter(op)); err != nil {
		dup.t.state.freed.Store(true)
		return Datatype{}, err
	}
	return dup, nil
}

// typeAttrArgs checks a datatype attribute call's type and keyval and
// returns the type's attributes.
func typeAttrArgs(op string, dt Datatype, kv Keyval, lookup bool) (*attrSet, *keyval, error) {
	if _, err := validType(op, "the datatype", dt); err != nil {
		return nil, nil, err
	}
	k, err := kv.checkFor(op+" on "+dt.Name(), typeAttr, lookup)
	if err != nil {
		return nil, nil, err
	}
	return dt.attrSet(), k, nil
}

// attrSet is d's attributes; d is valid.
func (d Datatype) attrSet() *attrSet {
	if d.t.state != nil {
		return &d.t.state.attrs
	}
	s, _ := builtinTypeAttrs.LoadOrStore(d.t, &attrSet{})
	return s.(*attrSet)
}

// deleter runs an entry's delete callback on d, op naming the call in
// its error.
func (d Datatype) deleter(op string) func(attrEntry) error {
	return func(e attrEntry) error {
		if err := e.k.typeDel(d, Keyval{e.k}, e.value, e.k.extra); err != nil {
			return errorf(classOf(err), err, "%s on %s: the delete callback of %v failed", op, d.Name(), e.k)
		}
		return nil
	}
}

// freeAttrs deletes d's attributes before Free marks it freed: the last
// set first, stopping at a failing delete callback, whose error fails
// the Free and leaves d valid.
func (d Datatype) freeAttrs() error {
	return d.attrSet().removeAll(d.deleter("type free"))
}
