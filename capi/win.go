package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "fmt"

// gompi has no one-sided communication, so MPI_WIN_NULL is the only
// window handle; MPI 4.1 names it, as it names the other null handles.
func mpiWinGetName(h Win, name *C.char, n *C.int) error {
	if h != MPI_WIN_NULL {
		return &abiError{C.MPI_ERR_WIN, fmt.Sprintf("%#x is not a window (gompi's libmpi_abi makes none: one-sided communication is not supported)", uintptr(h))}
	}
	*n = C.int(putString(name, "MPI_WIN_NULL", C.MPI_MAX_OBJECT_NAME))
	return nil
}
