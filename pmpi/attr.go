package pmpi

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// Attribute caching (MPI 4.1, section 7.7): a program or a library keeps
// its own values on a communicator or a datatype under a keyval it
// created, with callbacks that say what happens to a value when the
// object is duplicated (copy) and when the value goes (delete).
//
// Values are any, the Go form of C's void*. Callbacks run in the calling
// goroutine with no lock held, so that one may call MPI, on the same
// object among others.

// Keyval is a key under which attributes are cached. The zero Keyval is
// MPI_KEYVAL_INVALID: every call with it fails.
type Keyval struct{ k *keyval }

// CommCopyAttrFunc is called by CommDup for each attribute of the old
// communicator: it returns the value the new one gets and whether it gets
// one (false: the attribute is not copied). An error fails the Dup.
type CommCopyAttrFunc func(old *Comm, kv Keyval, value, extra any) (any, bool, error)

// CommDeleteAttrFunc is called when an attribute's value goes: by
// CommDeleteAttr, by CommSetAttr replacing it, and by CommFree. An
// error fails that call and leaves the value in place.
type CommDeleteAttrFunc func(comm *Comm, kv Keyval, value, extra any) error

// TypeCopyAttrFunc is CommCopyAttrFunc for datatypes, called by TypeDup.
type TypeCopyAttrFunc func(old Datatype, kv Keyval, value, extra any) (any, bool, error)

// TypeDeleteAttrFunc is CommDeleteAttrFunc for datatypes, called by
// TypeDeleteAttr, TypeSetAttr and TypeFree.
type TypeDeleteAttrFunc func(dt Datatype, kv Keyval, value, extra any) error

// The predefined callbacks (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN,
// MPI_COMM_NULL_DELETE_FN and the MPI_TYPE_ ones). A nil callback
// passed to a CreateKeyval call means the null one.
var (
	// CommNullCopyFn copies nothing: the new communicator has no value.
	CommNullCopyFn CommCopyAttrFunc = func(*Comm, Keyval, any, any) (any, bool, error) { return nil, false, nil }
	// CommDupFn gives the new communicator the same value.
	CommDupFn CommCopyAttrFunc = func(_ *Comm, _ Keyval, v, _ any) (any, bool, error) { return v, true, nil }
	// CommNullDeleteFn does nothing.
	CommNullDeleteFn CommDeleteAttrFunc = func(*Comm, Keyval, any, any) error { return nil }

	// TypeNullCopyFn copies nothing: the new datatype has no value.
	TypeNullCopyFn TypeCopyAttrFunc = func(Datatype, Keyval, any, any) (any, bool, error) { return nil, false, nil }
	// TypeDupFn gives the new datatype the same value.
	TypeDupFn TypeCopyAttrFunc = func(_ Datatype, _ Keyval, v, _ any) (any, bool, error) { return v, true, nil }
	// TypeNullDeleteFn does nothing.
	TypeNullDeleteFn TypeDeleteAttrFunc = func(Datatype, Keyval, any, any) error { return nil }
)

// attrKind is what objects a keyval's attributes go on.
type attrKind uint8

const (
	commAttr attrKind = iota + 1
	typeAttr
)

func (k attrKind) String() string {
	if k == typeAttr {
		return "datatype"
	}
	return "communicator"
}

// keyval is a Keyval's state. A freed keyval lives on, for the
// callbacks of the attributes that still use it, until the last of them
// goes and the garbage collector takes it: MPI's reference count.
type keyval struct {
	id    uint64 // creation order, for error messages
	kind  attrKind
	name  string // a predefined keyval's MPI name; "" for the user's
	extra any

	commCopy CommCopyAttrFunc
	commDel  CommDeleteAttrFunc
	typeCopy TypeCopyAttrFunc
	typeDel  TypeDeleteAttrFunc

	// builtin gives a predefined attribute's value on a communicator;
	// nil for a keyval of the user's.
	builtin func(c *Comm) any
	freed   atomic.Bool
	// uses counts the attributes set with the keyval: MPI frees a keyval
	// only once none is left, so until then it still names them for
	// get and delete.
	uses atomic.Int64
}

func (k *keyval) String() string {
	if k.name != "" {
		return k.name
	}
	return "keyval " + strconv.FormatUint(k.id, 10) + " (" + k.kind.String() + ")"
}

// keyvalIDs numbers keyvals; only messages read the numbers.
var keyvalIDs atomic.Uint64

func newKeyval(kind attrKind, extra any) Keyval {
	return Keyval{&keyval{id: keyvalIDs.Add(1), kind: kind, extra: extra}}
}

// String names the keyval: a predefined one by its MPI name.
func (kv Keyval) String() string {
	if kv.k == nil {
		return "MPI_KEYVAL_INVALID"
	}
	return kv.k.String()
}

// InUse reports whether an attribute set with kv is still cached on an
// object: a freed keyval lasts, and names it, until none is.
func (kv Keyval) InUse() bool { return kv.k != nil && kv.k.uses.Load() > 0 }

// check returns kv's state if it may be used on an object of kind. A
// freed keyval may still get and delete the attributes set with it
// (lookup), not set new ones.
func (kv Keyval) check(op string, kind attrKind) (*keyval, error) {
	return kv.checkFor(op, kind, false)
}

func (kv Keyval) checkFor(op string, kind attrKind, lookup bool) (*keyval, error) {
	switch k := kv.k; {
	case k == nil:
		return nil, errorf(ClassKeyval, nil, "%s: the keyval is invalid (MPI_KEYVAL_INVALID: create one first)", op)
	case k.freed.Load() && (!lookup || k.uses.Load() == 0):
		// A freed keyval still reads and deletes its values until the
		// last goes.
		return nil, errorf(ClassKeyval, nil, "%s: %v was freed", op, k)
	case k.kind != kind:
		return nil, errorf(ClassKeyval, nil, "%s: %v is a %s keyval (want a %s one)", op, k, k.kind, kind)
	default:
		return k, nil
	}
}

// freeKeyval frees *kv and sets it to the zero Keyval, as
// MPI_Comm_free_keyval sets MPI_KEYVAL_INVALID.
func freeKeyval(op string, kv *Keyval, kind attrKind) error {
	if kv == nil {
		return errorf(ClassArg, nil, "%s: the keyval pointer is nil", op)
	}
	k, err := kv.check(op, kind)
	if err != nil {
		return err
	}
	if k.builtin != nil {
		return errorf(ClassKeyval, nil, "%s: %v is predefined and cannot be freed", op, k)
	}
	if !k.freed.CompareAndSwap(false, true) {
		return errorf(ClassKeyval, nil, "%s: %v was freed", op, k)
	}
	*kv = Keyval{}
	return nil
}

// attrEntry is one cached value; seq orders entries by when they were set.
type attrEntry struct {
	k     *keyval
	value any
	seq   uint64
}

// attrSet is the attributes of one object. Its lock guards the map
// alone: callbacks run with it released, on values taken out of the map,
// so that each value's delete callback runs once however calls race.
type attrSet struct {
	mu       sync.Mutex
	m        map[*keyval]attrEntry
	seq      uint64
	deleting bool // removeAll runs: the object is being freed
}

// closing reports whether the object's attributes are being deleted
// because it is freed: a delete callback's set would leave a value that
// no callback deletes.
func (s *attrSet) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleting
}

func (s *attrSet) get(k *keyval) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[k]
	return e.value, ok
}

// put stores value under k and returns the entry it replaced, if any.
func (s *attrSet) put(k *keyval, value any) (attrEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[*keyval]attrEntry{}
	}
	old, had := s.m[k]
	s.seq++
	s.m[k] = attrEntry{k, value, s.seq}
	if !had {
		k.uses.Add(1)
	}
	return old, had
}

// take removes k's entry and returns it.
func (s *attrSet) take(k *keyval) (attrEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[k]
	if ok {
		delete(s.m, k)
		k.uses.Add(-1)
	}
	return e, ok
}

// restore puts back an entry whose delete callback failed, unless
// another value was set meanwhile.
func (s *attrSet) restore(e attrEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.m[e.k]; !taken {
		if s.m == nil {
			s.m = map[*keyval]attrEntry{}
		}
		s.m[e.k] = e
		e.k.uses.Add(1)
	}
}

// entries is the set's entries in the order they were set.
func (s *attrSet) entries() []attrEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	es := make([]attrEntry, 0, len(s.m))
	for _, e := range s.m {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b attrEntry) int { return compareSeq(a.seq, b.seq) })
	return es
}

func compareSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// set stores value under k, first deleting the value it replaces with
// del; a failing del leaves the old value in place.
func (s *attrSet) set(k *keyval, value any, del func(attrEntry) error) error {
	if old, had := s.take(k); had {
		if err := del(old); err != nil {
			s.restore(old)
			return err
		}
	}
	if old, had := s.put(k, value); had {
		// Another goroutine set a value between take and put: it goes
		// as if this call had replaced it.
		return del(old)
	}
	return nil
}

// remove deletes k's value with del; a failing del leaves it in place.
func (s *attrSet) remove(k *keyval, del func(attrEntry) error) (bool, error) {
	e, had := s.take(k)
	if !had {
		return false, nil
	}
	if err := del(e); err != nil {
		s.restore(e)
		return true, err
	}
	return true, nil
}

// removeAll deletes every value, the last set first (as MPI_Finalize
// deletes MPI_COMM_SELF's), and stops at the first failing del, which
// leaves that value and those not yet deleted in place.
func (s *attrSet) removeAll(del func(attrEntry) error) error {
	s.mu.Lock()
	none := len(s.m) == 0
	s.mu.Unlock()
	if none { // most objects: freed without a callback to run
		return nil
	}
	s.setDeleting(true)
	defer s.setDeleting(false) // freed, the object takes no calls; else it stays valid
	es := s.entries()
	for i := len(es) - 1; i >= 0; i-- {
		if _, err := s.remove(es[i].k, del); err != nil {
			return err
		}
	}
	return nil
}

func (s *attrSet) setDeleting(on bool) {
	s.mu.Lock()
	s.deleting = on
	s.mu.Unlock()
}

// clear deletes every value, the last set first, whether or not a del
// fails: the cleanup of a failed copy, whose object never reaches the
// user. It returns the dels' errors.
func (s *attrSet) clear(del func(attrEntry) error) error {
	var errs []error
	es := s.entries()
	for i := len(es) - 1; i >= 0; i-- {
		if e, had := s.take(es[i].k); had {
			errs = append(errs, del(e))
		}
	}
	return errors.Join(errs...)
}

// copyTo gives dst the values copy returns for s's, in the order they
// were set. If a copy fails, the values dst already got are deleted with
// del and the copy's error is returned, joined with theirs.
func (s *attrSet) copyTo(dst *attrSet, copy func(attrEntry) (any, bool, error), del func(attrEntry) error) error {
	for _, e := range s.entries() {
		v, ok, err := copy(e)
		if err != nil {
			return errors.Join(err, dst.clear(del))
		}
		if ok {
			dst.put(e.k, v)
		}
	}
	return nil
}
