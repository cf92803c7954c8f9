package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gompi/gompi/internal/pml"
	"github.com/gompi/gompi/pmpi"
)

// The performance variables: what the point-to-point engine's queues hold
// at the moment a tool reads them, counted then (pmpi.QueueLevels), so
// that no call counts anything for them. Each is of class LEVEL, an
// MPI_UNSIGNED_LONG_LONG bound to no object, read-only and continuous
// (always running: start and stop do not apply), and 0 while MPI does not
// run. The library's own operations (collectives over messages, a
// partitioned receive's setup) are counted with the program's.

type pvar struct {
	name, desc string
	read       func(pml.Levels) int
}

var pvars = []pvar{
	{"pml_posted_recvs", "receives posted and not matched yet", func(l pml.Levels) int { return l.Posted }},
	{"pml_unexpected_msgs", "messages that arrived before a receive matched them", func(l pml.Levels) int { return l.Unexpected }},
	{"pml_unexpected_bytes", "the bytes of the messages that arrived before a receive matched them", func(l pml.Levels) int { return l.UnexpectedBytes }},
	{"pml_pending_sends", "sends under way that wait for their receiver (rendezvous and synchronous sends)", func(l pml.Levels) int { return l.Sends }},
}

// pvarCategory names the performance variables' category.
const pvarCategory = "pml"

// addPvarCategory adds the category of the performance variables.
func (t *tools) addPvarCategory() {
	i := len(t.cats)
	c := category{name: pvarCategory, desc: "the point-to-point engine's queues, as performance variables"}
	for k := range pvars {
		c.pvars = append(c.pvars, k)
	}
	t.cats = append(t.cats, c)
	t.catIndex[pvarCategory] = i
}

func pvarAt(i int) (pvar, error) {
	if i < 0 || i >= len(pvars) {
		return pvar{}, toolErr(C.MPI_T_ERR_INVALID_INDEX, "performance variable %d does not exist (0 to %d)", i, len(pvars)-1)
	}
	return pvars[i], nil
}

func mpiTPvarGetNum(n *C.int) error {
	return lib.tools.running(func() error {
		*n = C.int(len(pvars))
		return nil
	})
}

func mpiTPvarGetInfo(i int, name *C.char, nameLen, verbosity, class *C.int, dt *Datatype, enumtype unsafe.Pointer,
	desc *C.char, descLen, bind, readonly, continuous, atomic *C.int) error {
	return lib.tools.running(func() error {
		v, err := pvarAt(i)
		if err != nil {
			return err
		}
		tString(name, nameLen, v.name)
		tString(desc, descLen, v.desc)
		for _, f := range []struct {
			out *C.int
			v   C.int
		}{{verbosity, C.MPI_T_VERBOSITY_USER_DETAIL}, {class, C.MPI_T_PVAR_CLASS_LEVEL}, {bind, C.MPI_T_BIND_NO_OBJECT},
			{readonly, 1}, {continuous, 1}, {atomic, 0}} {
			if f.out != nil {
				*f.out = f.v
			}
		}
		if dt != nil {
			*dt = MPI_UNSIGNED_LONG_LONG
		}
		if enumtype != nil {
			*(*C.uintptr_t)(enumtype) = 0 // MPI_T_ENUM_NULL
		}
		return nil
	})
}

func mpiTPvarGetIndex(name *C.char, class int, out *C.int) error {
	return lib.tools.running(func() error {
		if name == nil {
			return toolErr(C.MPI_T_ERR_INVALID_NAME, "pvar get index: the name is NULL")
		}
		s := C.GoString(name)
		for i, v := range pvars {
			if v.name == s && class == C.MPI_T_PVAR_CLASS_LEVEL {
				*out = C.int(i)
				return nil
			}
		}
		return toolErr(C.MPI_T_ERR_INVALID_NAME, "no performance variable of class %d is named %q (MPI_T_pvar_get_info lists them)", class, s)
	})
}

func mpiTPvarSessionCreate(out unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		h := t.next
		t.next++
		t.sessions[h] = map[uintptr]int{}
		*(*C.uintptr_t)(out) = C.uintptr_t(h)
		return nil
	})
}

func mpiTPvarSessionFree(p unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		s := C.uintptr_t(*(*C.uintptr_t)(p))
		if _, err := t.session(s); err != nil {
			return err
		}
		delete(t.sessions, uintptr(s))
		*(*C.uintptr_t)(p) = 0 // MPI_T_PVAR_SESSION_NULL
		return nil
	})
}

func (t *tools) session(s C.uintptr_t) (map[uintptr]int, error) {
	hs, ok := t.sessions[uintptr(s)]
	if !ok {
		return nil, toolErr(C.MPI_T_ERR_INVALID_SESSION, "%#x is not a performance variable session", uintptr(s))
	}
	return hs, nil
}

// allHandles is MPI_T_PVAR_ALL_HANDLES.
const allHandles = 1

// pvarHandle is the variable that handle h of session s reads; with all
// set, MPI_T_PVAR_ALL_HANDLES is accepted too, as -1.
func (t *tools) pvarHandle(op string, s, h C.uintptr_t, all bool) (int, error) {
	hs, err := t.session(s)
	if err != nil {
		return 0, err
	}
	if all && h == allHandles {
		return -1, nil
	}
	i, ok := hs[uintptr(h)]
	if !ok {
		return 0, toolErr(C.MPI_T_ERR_INVALID_HANDLE, "%s: %#x is not a handle of performance variable session %#x", op, uintptr(h), uintptr(s))
	}
	return i, nil
}

func mpiTPvarHandleAlloc(s C.uintptr_t, i int, obj, out unsafe.Pointer, count *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		hs, err := t.session(s)
		if err != nil {
			return err
		}
		if _, err := pvarAt(i); err != nil {
			return err
		}
		h := t.next
		t.next++
		hs[h] = i
		*(*C.uintptr_t)(out) = C.uintptr_t(h)
		*count = 1
		return nil
	})
}

func mpiTPvarHandleFree(s C.uintptr_t, p unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		h := C.uintptr_t(*(*C.uintptr_t)(p))
		if _, err := t.pvarHandle("pvar handle free", s, h, false); err != nil {
			return err
		}
		delete(t.sessions[uintptr(s)], uintptr(h))
		*(*C.uintptr_t)(p) = 0 // MPI_T_PVAR_HANDLE_NULL
		return nil
	})
}

// pvarRefuse is start, stop, write, reset and readreset: the variables are
// continuous and read-only, so each handle is refused with code, saying
// why; with all, MPI_T_PVAR_ALL_HANDLES applies to none and succeeds.
func pvarRefuse(op string, s, h C.uintptr_t, all bool, code C.int, why string) error {
	t := &lib.tools
	return t.running(func() error {
		i, err := t.pvarHandle(op, s, h, all)
		if err != nil || i < 0 {
			return err
		}
		return toolErr(int(code), "%s: %s is %s", op, pvars[i].name, why)
	})
}

const (
	continuous = "continuous: it cannot be started or stopped"
	readOnly   = "read-only"
)

func mpiTPvarStart(s, h C.uintptr_t) error {
	return pvarRefuse("pvar start", s, h, true, C.MPI_T_ERR_PVAR_NO_STARTSTOP, continuous)
}

func mpiTPvarStop(s, h C.uintptr_t) error {
	return pvarRefuse("pvar stop", s, h, true, C.MPI_T_ERR_PVAR_NO_STARTSTOP, continuous)
}

func mpiTPvarReset(s, h C.uintptr_t) error {
	return pvarRefuse("pvar reset", s, h, true, C.MPI_T_ERR_PVAR_NO_WRITE, readOnly)
}

func mpiTPvarReadreset(s, h C.uintptr_t, buf unsafe.Pointer) error {
	return pvarRefuse("pvar readreset", s, h, false, C.MPI_T_ERR_PVAR_NO_WRITE, readOnly)
}

func mpiTPvarWrite(s, h C.uintptr_t, buf unsafe.Pointer) error {
	return pvarRefuse("pvar write", s, h, false, C.MPI_T_ERR_PVAR_NO_WRITE, readOnly)
}

func mpiTPvarRead(s, h C.uintptr_t, buf unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		i, err := t.pvarHandle("pvar read", s, h, false)
		if err != nil {
			return err
		}
		if buf == nil {
			return toolErr(C.MPI_T_ERR_INVALID, "pvar read: the buffer is NULL")
		}
		*(*C.ulonglong)(buf) = C.ulonglong(pvars[i].read(pmpi.QueueLevels()))
		return nil
	})
}
