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
	lib.mem.Store(uintptr(p), size)
	*(*uintptr)(baseptr) = uintptr(p)
	return nil
}

// mpiFreeMem frees a block of mpiAllocMem's; NULL is nothing to free.
func mpiFreeMem(base unsafe.Pointer) error {
	if base == nil {
		return nil
	}
	if _, ok := lib.mem.LoadAndDelete(uintptr(base)); !ok {
		return &abiError{C.MPI_ERR_BASE, fmt.Sprintf("free mem: %p is not the address of a block MPI_Alloc_mem gave and MPI_Free_mem has not freed", base)}
	}
	C.free(base)
	return nil
}
