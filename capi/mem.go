package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include <stdlib.h>
#include "include/mpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// mpiAllocMem is C's malloc: gompi's transports need no special memory
// (shared-memory segments are their own). baseptr is a void ** in C.
func mpiAllocMem(size int, info Info, baseptr unsafe.Pointer) error {
	if size < 0 {
		return errorf(pmpi.ClassArg, "alloc mem: size %d is negative", size)
	}
	if _, err := info.optional(); err != nil {
		return err
	}
	p := C.malloc(C.size_t(max(size, 1)))
	if p == nil {
		return &abiError{C.MPI_ERR_NO_MEM, fmt.Sprintf("alloc mem: malloc of %d bytes failed", size)}
	}
	*(*uintptr)(baseptr) = uintptr(p)
	return nil
}

func mpiFreeMem(base unsafe.Pointer) error {
	C.free(base)
	return nil
}
