package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

// The fields a generalized request's query function, or a tool, sets in a
// status of its own (MPI 4.1's MPI_Status_set_source and kin).

func mpiStatusSetSource(st *C.MPI_Status, source int) error {
	st.MPI_SOURCE = C.int(source)
	return nil
}

func mpiStatusSetTag(st *C.MPI_Status, tag int) error {
	st.MPI_TAG = C.int(tag)
	return nil
}

func mpiStatusSetError(st *C.MPI_Status, code int) error {
	st.MPI_ERROR = C.int(code)
	return nil
}
