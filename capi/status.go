package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// C's MPI_Status keeps the message's size in bytes in MPI_internal[0..1]
// and whether it was cancelled in MPI_internal[2].

// putStatus writes st to dst unless dst is MPI_STATUS_IGNORE. Like the
// single-completion calls, it leaves MPI_ERROR alone, but for an empty
// status (a null or inactive request's), which MPI defines whole:
// MPI_ERROR is MPI_SUCCESS.
func putStatus(dst *C.MPI_Status, st *pmpi.Status) {
	if dst == nil {
		return
	}
	if st.Source == pmpi.AnySource {
		dst.MPI_ERROR = C.MPI_SUCCESS
	}
	dst.MPI_SOURCE, dst.MPI_TAG = cRank(st.Source), cTag(st.Tag)
	putBytes(dst, st.Bytes())
	dst.MPI_internal[2] = cbool(st.Cancelled)
}

// putBytes writes a message's size in bytes into dst.
func putBytes(dst *C.MPI_Status, n int) {
	b := uint64(n)
	dst.MPI_internal[0], dst.MPI_internal[1] = C.int(uint32(b)), C.int(uint32(b>>32))
}

// getStatus reads a status C holds.
func getStatus(src *C.MPI_Status) pmpi.Status {
	st := pmpi.Status{Source: rank(int(src.MPI_SOURCE)), Tag: tag(int(src.MPI_TAG)), Cancelled: src.MPI_internal[2] != 0}
	st.SetBytes(int(uint64(uint32(src.MPI_internal[0])) | uint64(uint32(src.MPI_internal[1]))<<32))
	return st
}

// statuses is the array of n statuses at p, nil for MPI_STATUSES_IGNORE.
func statuses(p *C.MPI_Status, n int) []C.MPI_Status {
	if p == nil {
		return nil
	}
	return unsafe.Slice(p, n)
}

func mpiGetCount[N cInt](st *C.MPI_Status, dt Datatype, count *N) error {
	d, err := dt.get()
	if err != nil {
		return err
	}
	*count = countIn[N](getStatus(st).CountOf(d))
	return nil
}

func mpiGetElements[N cInt](st *C.MPI_Status, dt Datatype, count *N) error {
	d, err := dt.get()
	if err != nil {
		return err
	}
	*count = countIn[N](getStatus(st).GetElements(d))
	return nil
}

func mpiTestCancelled(st *C.MPI_Status, flag *C.int) error {
	*flag = C.int(st.MPI_internal[2])
	return nil
}

func mpiStatusSetCancelled(st *C.MPI_Status, flag int) error {
	st.MPI_internal[2] = cbool(flag != 0)
	return nil
}

func mpiStatusSetElements(st *C.MPI_Status, dt Datatype, count int) error {
	d, err := dt.get()
	if err != nil {
		return err
	}
	s := getStatus(st)
	if err := api().StatusSetElements(&s, d, count); err != nil {
		return err
	}
	putBytes(st, s.Bytes()) // the size alone: the program's other fields stay as they are
	return nil
}

// The deprecated _x forms are the _c ones.

func mpiGetElementsX(st *C.MPI_Status, dt Datatype, count *C.int64_t) error {
	return mpiGetElements(st, dt, count)
}

func mpiStatusSetElementsX(st *C.MPI_Status, dt Datatype, count int) error {
	return mpiStatusSetElements(st, dt, count)
}
