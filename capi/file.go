package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
void gompi_call_file_errhandler(void *fn, uintptr_t file, int code);
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// gompi's libmpi_abi opens no files: MPI_File_open is not supported, so
// MPI_FILE_NULL is the only file handle. Its error handler is kept all the
// same, as the standard gives files their own: the file functions raise
// their errors there, not on a communicator, and it starts as
// MPI_ERRORS_RETURN, so that a program that checks MPI_File_open's result
// and falls back to other I/O gets the error back, as it would from an
// MPI whose file system support is missing.

// fileErrhandler is MPI_FILE_NULL's error handler.
func fileErrhandler() Errhandler {
	if eh := lib.fileErrh.Load(); eh != 0 {
		return Errhandler(eh)
	}
	return MPI_ERRORS_RETURN
}

// doneFile is done for the file functions.
func doneFile(fn string, err error) int {
	if err == nil {
		return 0
	}
	lib.lastErrs.note(fn, err)
	return raiseOnFile(fn, err)
}

// unsupportedFile is unsupported for the file functions.
func unsupportedFile(name string) int { return doneFile(name, errUnsupported) }

// raiseOnFile raises err, of a call of fn, on MPI_FILE_NULL's error
// handler.
func raiseOnFile(fn string, err error) int {
	return raiseTo(fn, fileErrhandler(), "on MPI_FILE_NULL", err, classOf(err), func(f unsafe.Pointer, code C.int) {
		C.gompi_call_file_errhandler(f, C.uintptr_t(MPI_FILE_NULL), code)
	})
}

// check checks f is a file handle: MPI_FILE_NULL, which stands for every
// file in the error handler calls.
func (f File) check() error {
	if f != MPI_FILE_NULL {
		return &abiError{C.MPI_ERR_FILE, fmt.Sprintf("%#x is not a file: gompi's libmpi_abi opens none, so MPI_FILE_NULL is the only file handle", uintptr(f))}
	}
	return nil
}

func mpiFileCreateErrhandler(fn unsafe.Pointer, out *Errhandler) error {
	return createErrhandler("file create errhandler", fn, out)
}

func mpiFileSetErrhandler(f File, eh Errhandler) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := eh.check(); err != nil {
		return err
	}
	lib.fileErrh.Store(uintptr(eh))
	return nil
}

func mpiFileGetErrhandler(f File, out *Errhandler) error {
	if err := f.check(); err != nil {
		return err
	}
	*out = handOut(fileErrhandler())
	return nil
}

func mpiFileCallErrhandler(f File, code int) error {
	if err := f.check(); err != nil {
		return err
	}
	raiseOnFile("MPI_File_call_errhandler", &abiError{code, fmt.Sprintf("error code %d raised by MPI_File_call_errhandler", code)})
	return nil
}
