package mpi

import "github.com/gompi/gompi/pmpi"

// Keyval is a key under which a program or library caches its own values
// (attributes) on communicators or datatypes. The zero Keyval is
// MPI_KEYVAL_INVALID.
type Keyval = pmpi.Keyval

// CommCopyAttrFunc is called by Dup for each attribute of the old
// communicator: it returns the value the new one gets and whether it gets
// one (false: not copied). An error fails the Dup, after the values the
// new communicator already got are deleted.
type CommCopyAttrFunc func(old Comm, kv Keyval, value, extra any) (any, bool, error)

// CommDeleteAttrFunc is called when an attribute's value goes: by
// DeleteAttr, by SetAttr replacing it, and by Free. An error fails that
// call and leaves the value in place (and a Free's communicator valid).
type CommDeleteAttrFunc func(comm Comm, kv Keyval, value, extra any) error

// The predefined callbacks: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN,
// MPI_COMM_NULL_DELETE_FN. A nil callback means the null one.
var (
	// CommNullCopyFn copies nothing: the new communicator has no value.
	CommNullCopyFn CommCopyAttrFunc = func(Comm, Keyval, any, any) (any, bool, error) { return nil, false, nil }
	// CommDupFn gives the new communicator the same value.
	CommDupFn CommCopyAttrFunc = func(_ Comm, _ Keyval, v, _ any) (any, bool, error) { return v, true, nil }
	// CommNullDeleteFn does nothing.
	CommNullDeleteFn CommDeleteAttrFunc = func(Comm, Keyval, any, any) error { return nil }
)

// The predefined attributes, read with Comm.Attr on any communicator;
// they cannot be set or deleted. Each value is an int, but
// AttrWtimeIsGlobal's, a bool.
var (
	AttrTagUB         = pmpi.AttrTagUB         // MPI_TAG_UB: the largest tag
	AttrHost          = pmpi.AttrHost          // MPI_HOST: ProcNull, gompi has no host process
	AttrIO            = pmpi.AttrIO            // MPI_IO: AnySource, every rank can do I/O
	AttrWtimeIsGlobal = pmpi.AttrWtimeIsGlobal // MPI_WTIME_IS_GLOBAL: false
	AttrAppNum        = pmpi.AttrAppNum        // MPI_APPNUM: the rank's MPMD app context, as AppNum
	AttrUniverseSize  = pmpi.AttrUniverseSize  // MPI_UNIVERSE_SIZE: the job's size
)

// CommCreateKeyval makes a keyval for communicator attributes; extra is
// passed to both callbacks (MPI_Comm_create_keyval).
func CommCreateKeyval(copy CommCopyAttrFunc, del CommDeleteAttrFunc, extra any) (Keyval, error) {
	var pc pmpi.CommCopyAttrFunc
	if copy != nil {
		pc = func(old *pmpi.Comm, kv Keyval, value, extra any) (any, bool, error) {
			return copy(Comm{old}, kv, value, extra)
		}
	}
	var pd pmpi.CommDeleteAttrFunc
	if del != nil {
		pd = func(c *pmpi.Comm, kv Keyval, value, extra any) error { return del(Comm{c}, kv, value, extra) }
	}
	return api().CommCreateKeyval(pc, pd, extra)
}

// CommFreeKeyval frees *kv and sets it to the invalid Keyval
// (MPI_Comm_free_keyval). The attributes set with it stay, and their
// callbacks still run, until each goes.
func CommFreeKeyval(kv *Keyval) error { return api().CommFreeKeyval(kv) }

// SetAttr caches value on c under kv, deleting the value it replaces
// first (MPI_Comm_set_attr).
func (c Comm) SetAttr(kv Keyval, value any) error { return api().CommSetAttr(c.c, kv, value) }

// Attr returns the value cached on c under kv and whether there is one
// (MPI_Comm_get_attr).
func (c Comm) Attr(kv Keyval) (any, bool, error) { return api().CommGetAttr(c.c, kv) }

// DeleteAttr deletes the value cached on c under kv, running its delete
// callback (MPI_Comm_delete_attr); it fails if there is none.
func (c Comm) DeleteAttr(kv Keyval) error { return api().CommDeleteAttr(c.c, kv) }

// TypeCopyAttrFunc is called by TypeDup for each attribute of the old
// datatype, as CommCopyAttrFunc is by Dup.
type TypeCopyAttrFunc = pmpi.TypeCopyAttrFunc

// TypeDeleteAttrFunc is called when a datatype attribute's value goes:
// by TypeDeleteAttr, TypeSetAttr and Free.
type TypeDeleteAttrFunc = pmpi.TypeDeleteAttrFunc

// The predefined datatype callbacks: MPI_TYPE_NULL_COPY_FN,
// MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN.
var (
	TypeNullCopyFn   = pmpi.TypeNullCopyFn
	TypeDupFn        = pmpi.TypeDupFn
	TypeNullDeleteFn = pmpi.TypeNullDeleteFn
)

// TypeCreateKeyval makes a keyval for datatype attributes
// (MPI_Type_create_keyval).
func TypeCreateKeyval(copy TypeCopyAttrFunc, del TypeDeleteAttrFunc, extra any) (Keyval, error) {
	return api().TypeCreateKeyval(copy, del, extra)
}

// TypeFreeKeyval frees *kv and sets it to the invalid Keyval
// (MPI_Type_free_keyval).
func TypeFreeKeyval(kv *Keyval) error { return api().TypeFreeKeyval(kv) }

// TypeSetAttr caches value on dt under kv (MPI_Type_set_attr).
func TypeSetAttr(dt Datatype, kv Keyval, value any) error { return api().TypeSetAttr(dt, kv, value) }

// TypeGetAttr returns the value cached on dt under kv and whether there
// is one (MPI_Type_get_attr).
func TypeGetAttr(dt Datatype, kv Keyval) (any, bool, error) { return api().TypeGetAttr(dt, kv) }

// TypeDeleteAttr deletes the value cached on dt under kv
// (MPI_Type_delete_attr).
func TypeDeleteAttr(dt Datatype, kv Keyval) error { return api().TypeDeleteAttr(dt, kv) }

// TypeDup returns a copy of dt with the same type map, committed if dt
// is, and the attributes dt's copy callbacks return (MPI_Type_dup).
func TypeDup(dt Datatype) (Datatype, error) { return api().TypeDup(dt) }

// TypeFree frees dt, a datatype TypeDup returned (MPI_Type_free): later
// calls with it fail with ErrType. A layout's is freed by Layout.Free.
func TypeFree(dt Datatype) error { return api().TypeFree(dt) }

// Dup returns a copy of l's datatype (committed, as l's is) with the
// same type map and the attributes its copy callbacks return
// (MPI_Type_dup).
func (l Layout[T]) Dup() (Layout[T], error) {
	dt, err := api().TypeDup(l.dt)
	return Layout[T]{dt}, err
}
