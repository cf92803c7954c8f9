package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
int gompi_call_grequest_query(uintptr_t fn, uintptr_t extra, MPI_Status *st);
int gompi_call_grequest_free(uintptr_t fn, uintptr_t extra);
int gompi_call_grequest_cancel(uintptr_t fn, uintptr_t extra, int complete);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// grequestError is a generalized request's function's failure: its code
// is the call's error.
func grequestError(what string, rc C.int) error {
	return &abiError{int(rc), fmt.Sprintf("the generalized request's %s function returned error code %d", what, rc)}
}

// mpiGrequestStart makes a generalized request whose functions are C's.
// The extra state is an integer to Go: C may pass any value there.
func mpiGrequestStart(query, free, cancel unsafe.Pointer, extra unsafe.Pointer, out *Request) error {
	if out == nil {
		return errorf(pmpi.ClassArg, "grequest start: the pointer for the request is NULL")
	}
	x := C.uintptr_t(uintptr(extra))
	var (
		q pmpi.GrequestQuery
		f pmpi.GrequestFree
		c pmpi.GrequestCancel
	)
	if query != nil {
		fn := C.uintptr_t(uintptr(query))
		q = func(st *pmpi.Status) error {
			var cs C.MPI_Status
			putStatus(&cs, st)
			rc := C.gompi_call_grequest_query(fn, x, &cs)
			*st = getStatus(&cs)
			if rc != C.MPI_SUCCESS {
				return grequestError("query", rc)
			}
			return nil
		}
	}
	if free != nil {
		fn := C.uintptr_t(uintptr(free))
		f = func() error {
			if rc := C.gompi_call_grequest_free(fn, x); rc != C.MPI_SUCCESS {
				return grequestError("free", rc)
			}
			return nil
		}
	}
	if cancel != nil {
		fn := C.uintptr_t(uintptr(cancel))
		c = func(complete bool) error {
			if rc := C.gompi_call_grequest_cancel(fn, x, cbool(complete)); rc != C.MPI_SUCCESS {
				return grequestError("cancel", rc)
			}
			return nil
		}
	}
	r, err := api().GrequestStart(q, f, c)
	if err != nil {
		return err
	}
	if err := newRequest(out, r, lib.self.Load(), false); err != nil {
		return err
	}
	lib.reqs.get(uintptr(*out)).general = true
	return nil
}

func mpiGrequestComplete(h Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	err = api().GrequestComplete(e.r)
	e.done = true
	if e.freed { // MPI_Request_free kept the handle for this call only
		forget(&h)
	}
	return err
}
