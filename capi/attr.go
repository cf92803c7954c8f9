package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include <stdlib.h>
#include "include/mpi.h"
int gompi_call_comm_copy(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int gompi_call_comm_delete(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t value, uintptr_t extra);
int gompi_call_type_copy(uintptr_t fn, uintptr_t type, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int gompi_call_type_delete(uintptr_t fn, uintptr_t type, int keyval, uintptr_t value, uintptr_t extra);
*/
import "C"

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// Attribute caching on communicators and datatypes. C's keyvals are
// ints: a user's is a handle in keyvals, a predefined one the standard's
// constant. C's values are void*, which may hold any integer, so Go keeps
// them as uintptr and never as pointers; so are the callbacks and their
// extra states, which C's trampolines (callbacks.c) call.

// predefinedKeyvals are the predefined attributes gompi answers.
// MPI_LASTUSEDCODE is not among them: gompi's Go side has no user error
// codes, so mpiCommGetAttr answers it alone.
var predefinedKeyvals = map[int]pmpi.Keyval{
	C.MPI_TAG_UB: pmpi.AttrTagUB, C.MPI_HOST: pmpi.AttrHost, C.MPI_IO: pmpi.AttrIO,
	C.MPI_WTIME_IS_GLOBAL: pmpi.AttrWtimeIsGlobal, C.MPI_APPNUM: pmpi.AttrAppNum,
	C.MPI_UNIVERSE_SIZE: pmpi.AttrUniverseSize,
}

// keyvalOf is the keyval behind handle h. MPI_KEYVAL_INVALID is gompi's
// invalid Keyval, which pmpi rejects with its own message, as it rejects
// a keyval of the wrong kind.
func keyvalOf(h int) (pmpi.Keyval, error) {
	if h == C.MPI_KEYVAL_INVALID {
		return pmpi.Keyval{}, nil
	}
	if kv, ok := predefinedKeyvals[h]; ok {
		return kv, nil
	}
	if h == C.MPI_LASTUSEDCODE {
		return pmpi.Keyval{}, errorf(pmpi.ClassKeyval, "MPI_LASTUSEDCODE is predefined: it may only be read, with MPI_Comm_get_attr")
	}
	if kv := lib.keyvals.get(uintptr(h)); kv != nil {
		return *kv, nil
	}
	return pmpi.Keyval{}, errorf(pmpi.ClassKeyval, "%d is not a keyval (freed, or never one)", h)
}

// newKeyval gives the keyval create returns a handle in *out. create gets
// where the handle will be, for its callbacks to pass to C: the keyval is
// whole before the table holds it, and its handle set before C has it.
func newKeyval(out *C.int, create func(h *C.int) (pmpi.Keyval, error)) error {
	if out == nil {
		return errorf(pmpi.ClassArg, "create keyval: the keyval pointer is NULL")
	}
	h := new(C.int)
	kv, err := create(h)
	if err != nil {
		return err
	}
	lib.lingering.sweep()
	u, err := lib.keyvals.put(&kv)
	if err != nil {
		return err
	}
	*h = C.int(u)
	*out = *h
	return nil
}

// freeKeyval frees the keyval *p with free and sets *p to
// MPI_KEYVAL_INVALID. The attributes set with it stay, and their
// callbacks still run, until each is deleted; until then its number still
// names it for MPI_*_get_attr and MPI_*_delete_attr (a program may have
// kept it), and no new keyval takes it.
func freeKeyval(op string, p *C.int, free func(*pmpi.Keyval) error) error {
	if p == nil {
		return errorf(pmpi.ClassArg, "%s: the keyval pointer is NULL", op)
	}
	h := int(*p)
	if _, ok := predefinedKeyvals[h]; ok || h == C.MPI_LASTUSEDCODE {
		return errorf(pmpi.ClassKeyval, "%s: keyval %d is predefined and cannot be freed", op, h)
	}
	kv, err := keyvalOf(h)
	if err != nil {
		return err
	}
	if err := free(&kv); err != nil {
		return err
	}
	lib.lingering.add(uintptr(h))
	*p = C.MPI_KEYVAL_INVALID
	return nil
}

// lingering is the freed keyvals whose attributes are not all deleted.
type lingering struct {
	mu sync.Mutex
	hs []uintptr
}

// add releases the handle h of a freed keyval now if no attribute uses
// it, else once none does: each add and create looks again.
func (l *lingering) add(h uintptr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hs = append(l.hs, h)
	l.sweepLocked()
}

// sweep releases the handles of the lingering keyvals no attribute uses.
func (l *lingering) sweep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked()
}

func (l *lingering) sweepLocked() {
	l.hs = slices.DeleteFunc(l.hs, func(h uintptr) bool {
		if kv := lib.keyvals.get(h); kv != nil && kv.InUse() {
			return false
		}
		lib.keyvals.drop(h)
		return true
	})
}

// callbackError is a C callback's failure: its code is the call's error.
func callbackError(what string, keyval C.int, rc C.int) error {
	return &abiError{int(rc), fmt.Sprintf("the %s callback of keyval %d returned error code %d", what, keyval, rc)}
}

// value is an attribute's value as C's void*.
func value(v any) C.uintptr_t {
	u, _ := v.(uintptr)
	return C.uintptr_t(u)
}

// The callback sentinels of the standard ABI: MPI_*_NULL_COPY_FN and
// MPI_*_NULL_DELETE_FN are 0, MPI_*_DUP_FN is 1. gompi's own callbacks
// stand for them, and C's are never called.
const (
	nullFn = 0
	dupFn  = 1
)

func commCopy(fn uintptr, keyval *C.int, extra uintptr) pmpi.CommCopyAttrFunc {
	switch fn {
	case nullFn:
		return pmpi.CommNullCopyFn
	case dupFn:
		return pmpi.CommDupFn
	}
	return func(old *pmpi.Comm, _ pmpi.Keyval, v, _ any) (any, bool, error) {
		var out C.uintptr_t
		var flag C.int
		rc := C.gompi_call_comm_copy(C.uintptr_t(fn), C.uintptr_t(commHandleOf(old)), *keyval, C.uintptr_t(extra), value(v), &out, &flag)
		if rc != C.MPI_SUCCESS {
			return nil, false, callbackError("copy", *keyval, rc)
		}
		return uintptr(out), flag != 0, nil
	}
}

func commDelete(fn uintptr, keyval *C.int, extra uintptr) pmpi.CommDeleteAttrFunc {
	if fn == nullFn {
		return pmpi.CommNullDeleteFn
	}
	return func(c *pmpi.Comm, _ pmpi.Keyval, v, _ any) error {
		if rc := C.gompi_call_comm_delete(C.uintptr_t(fn), C.uintptr_t(commHandleOf(c)), *keyval, value(v), C.uintptr_t(extra)); rc != C.MPI_SUCCESS {
			return callbackError("delete", *keyval, rc)
		}
		return nil
	}
}

func typeCopy(fn uintptr, keyval *C.int, extra uintptr) pmpi.TypeCopyAttrFunc {
	switch fn {
	case nullFn:
		return pmpi.TypeNullCopyFn
	case dupFn:
		return pmpi.TypeDupFn
	}
	return func(old pmpi.Datatype, _ pmpi.Keyval, v, _ any) (any, bool, error) {
		var out C.uintptr_t
		var flag C.int
		rc := C.gompi_call_type_copy(C.uintptr_t(fn), C.uintptr_t(handleOf(old)), *keyval, C.uintptr_t(extra), value(v), &out, &flag)
		if rc != C.MPI_SUCCESS {
			return nil, false, callbackError("copy", *keyval, rc)
		}
		return uintptr(out), flag != 0, nil
	}
}

func typeDelete(fn uintptr, keyval *C.int, extra uintptr) pmpi.TypeDeleteAttrFunc {
	if fn == nullFn {
		return pmpi.TypeNullDeleteFn
	}
	return func(d pmpi.Datatype, _ pmpi.Keyval, v, _ any) error {
		if rc := C.gompi_call_type_delete(C.uintptr_t(fn), C.uintptr_t(handleOf(d)), *keyval, value(v), C.uintptr_t(extra)); rc != C.MPI_SUCCESS {
			return callbackError("delete", *keyval, rc)
		}
		return nil
	}
}

// commHandleOf is the handle of c, for a callback: gompi calls the
// callbacks with its communicator, not the handle.
func commHandleOf(c *pmpi.Comm) Comm {
	for _, p := range []struct {
		h Comm
		e *commEntry
	}{{MPI_COMM_WORLD, lib.world.Load()}, {MPI_COMM_SELF, lib.self.Load()}} {
		if p.e != nil && p.e.c == c {
			return p.h
		}
	}
	if h, ok := lib.commHandles.Load(c); ok {
		return h.(Comm)
	}
	return MPI_COMM_NULL
}

// The predefined attributes' values live in C memory, allocated once, so
// that the pointer MPI_Comm_get_attr returns stays valid.
const firstAttr, lastAttr = C.MPI_TAG_UB, C.MPI_UNIVERSE_SIZE

var attrValues = sync.OnceValue(func() *[lastAttr - firstAttr + 1]C.int {
	p := (*[lastAttr - firstAttr + 1]C.int)(C.malloc(C.size_t(unsafe.Sizeof([lastAttr - firstAttr + 1]C.int{}))))
	for h, kv := range predefinedKeyvals {
		v, _, _ := api().CommGetAttr(api().CommWorld(), kv)
		var n C.int
		switch v := v.(type) {
		case int:
			n = C.int(v)
			if h == C.MPI_HOST || h == C.MPI_IO {
				n = cRank(v)
			}
		case bool:
			n = cbool(v)
		}
		p[h-firstAttr] = n
	}
	p[C.MPI_LASTUSEDCODE-firstAttr] = C.MPI_ERR_LASTCODE
	return p
})

// The comm functions, and their deprecated MPI-1 names.

func mpiCommCreateKeyval(copyFn, delFn unsafe.Pointer, out *C.int, extra unsafe.Pointer) error {
	cp, del, x := uintptr(copyFn), uintptr(delFn), uintptr(extra)
	return newKeyval(out, func(h *C.int) (pmpi.Keyval, error) {
		return api().CommCreateKeyval(commCopy(cp, h, x), commDelete(del, h, x), nil)
	})
}

func mpiKeyvalCreate(copyFn, delFn unsafe.Pointer, out *C.int, extra unsafe.Pointer) error {
	return mpiCommCreateKeyval(copyFn, delFn, out, extra)
}

func mpiCommFreeKeyval(p *C.int) error {
	return freeKeyval("comm free keyval", p, api().CommFreeKeyval)
}

func mpiKeyvalFree(p *C.int) error { return mpiCommFreeKeyval(p) }

// The value arrives as void*, which may hold any integer: it becomes a
// uintptr at once, before Go could take it for a pointer.
func mpiCommSetAttr(h Comm, keyval int, v unsafe.Pointer) error {
	return setCommAttr(h, keyval, uintptr(v))
}
func mpiAttrPut(h Comm, keyval int, v unsafe.Pointer) error {
	return setCommAttr(h, keyval, uintptr(v))
}

func setCommAttr(h Comm, keyval int, u uintptr) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	kv, err := keyvalOf(keyval)
	if err != nil {
		return err
	}
	return api().CommSetAttr(c, kv, u)
}

// mpiCommGetAttr writes the value to the void* at out: for a predefined
// attribute, a pointer to its int.
func mpiCommGetAttr(h Comm, keyval int, out unsafe.Pointer, flag *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	if out == nil {
		return errorf(pmpi.ClassArg, "comm get attr: the value pointer is NULL")
	}
	dst := (*C.uintptr_t)(out)
	if _, ok := predefinedKeyvals[keyval]; ok || keyval == C.MPI_LASTUSEDCODE {
		*dst = C.uintptr_t(uintptr(unsafe.Pointer(&attrValues()[keyval-firstAttr])))
		*flag = 1
		return nil
	}
	kv, err := keyvalOf(keyval)
	if err != nil {
		return err
	}
	v, ok, err := api().CommGetAttr(c, kv)
	if err != nil {
		return err
	}
	*flag = cbool(ok)
	if ok {
		*dst = value(v)
	}
	return nil
}

func mpiAttrGet(h Comm, keyval int, out unsafe.Pointer, flag *C.int) error {
	return mpiCommGetAttr(h, keyval, out, flag)
}

func mpiCommDeleteAttr(h Comm, keyval int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	kv, err := keyvalOf(keyval)
	if err != nil {
		return err
	}
	return api().CommDeleteAttr(c, kv)
}

func mpiAttrDelete(h Comm, keyval int) error { return mpiCommDeleteAttr(h, keyval) }

// The datatype functions.

func mpiTypeCreateKeyval(copyFn, delFn unsafe.Pointer, out *C.int, extra unsafe.Pointer) error {
	cp, del, x := uintptr(copyFn), uintptr(delFn), uintptr(extra)
	return newKeyval(out, func(h *C.int) (pmpi.Keyval, error) {
		return api().TypeCreateKeyval(typeCopy(cp, h, x), typeDelete(del, h, x), nil)
	})
}

func mpiTypeFreeKeyval(p *C.int) error {
	return freeKeyval("type free keyval", p, api().TypeFreeKeyval)
}

// typeKeyval resolves a datatype attribute call's arguments.
func typeKeyval(h Datatype, keyval int) (pmpi.Datatype, pmpi.Keyval, error) {
	d, err := h.get()
	if err != nil {
		return d, pmpi.Keyval{}, err
	}
	kv, err := keyvalOf(keyval)
	return d, kv, err
}

func mpiTypeSetAttr(h Datatype, keyval int, v unsafe.Pointer) error {
	u := uintptr(v)
	d, kv, err := typeKeyval(h, keyval)
	if err != nil {
		return err
	}
	return api().TypeSetAttr(d, kv, u)
}

func mpiTypeGetAttr(h Datatype, keyval int, out unsafe.Pointer, flag *C.int) error {
	d, kv, err := typeKeyval(h, keyval)
	if err != nil {
		return err
	}
	if out == nil {
		return errorf(pmpi.ClassArg, "type get attr: the value pointer is NULL")
	}
	v, ok, err := api().TypeGetAttr(d, kv)
	if err != nil {
		return err
	}
	*flag = cbool(ok)
	if ok {
		*(*C.uintptr_t)(out) = value(v)
	}
	return nil
}

func mpiTypeDeleteAttr(h Datatype, keyval int) error {
	d, kv, err := typeKeyval(h, keyval)
	if err != nil {
		return err
	}
	return api().TypeDeleteAttr(d, kv)
}
