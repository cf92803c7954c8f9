package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "github.com/gompi/gompi/pmpi"

// The public fields of a status, read and set: MPI 5.0's accessors, and
// MPI 4.1's setters for a generalized request's query function or a tool.

// statusField checks a field's call: the status and, for a get, out.
func statusField(op string, st *C.MPI_Status, out *C.int) error {
	if st == nil {
		return noStatus(op)
	}
	if out == nil {
		return errorf(pmpi.ClassArg, "%s: the pointer for the value is NULL", op)
	}
	return nil
}

func mpiStatusGetSource(st *C.MPI_Status, source *C.int) error {
	if err := statusField("status get source", st, source); err != nil {
		return err
	}
	*source = st.MPI_SOURCE
	return nil
}

func mpiStatusGetTag(st *C.MPI_Status, tag *C.int) error {
	if err := statusField("status get tag", st, tag); err != nil {
		return err
	}
	*tag = st.MPI_TAG
	return nil
}

func mpiStatusGetError(st *C.MPI_Status, code *C.int) error {
	if err := statusField("status get error", st, code); err != nil {
		return err
	}
	*code = st.MPI_ERROR
	return nil
}

// noStatus is a setter's error for a NULL status.
func noStatus(op string) error {
	return errorf(pmpi.ClassArg, "%s: the status is NULL (MPI_STATUS_IGNORE holds no fields)", op)
}

func mpiStatusSetSource(st *C.MPI_Status, source int) error {
	if st == nil {
		return noStatus("status set source")
	}
	st.MPI_SOURCE = C.int(source)
	return nil
}

func mpiStatusSetTag(st *C.MPI_Status, tag int) error {
	if st == nil {
		return noStatus("status set tag")
	}
	st.MPI_TAG = C.int(tag)
	return nil
}

func mpiStatusSetError(st *C.MPI_Status, code int) error {
	if st == nil {
		return noStatus("status set error")
	}
	st.MPI_ERROR = C.int(code)
	return nil
}
