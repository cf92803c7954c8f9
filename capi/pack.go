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

// MPI_Pack and its kin. The packed buffer is size bytes of C memory; the
// position is read and written through the caller's pointer, whose type
// the _c twins widen.

// packed is the C buffer p of n bytes.
func packed(op string, p unsafe.Pointer, n int) ([]byte, error) {
	switch {
	case n < 0:
		return nil, errorf(pmpi.ClassArg, "%s: the packed buffer's size %d is negative", op, n)
	case n == 0:
		return nil, nil
	case p == nil:
		return nil, errorf(pmpi.ClassBuffer, "%s: the packed buffer is NULL with %d bytes", op, n)
	}
	return unsafe.Slice((*byte)(p), n), nil
}

// packArgs checks the communicator, which MPI_Pack names only to choose a
// representation, and returns the datatype and the packed buffer.
func packArgs(op string, comm Comm, dt Datatype, p unsafe.Pointer, size int) (pmpi.Datatype, []byte, error) {
	if _, err := comm.get(); err != nil {
		return pmpi.Datatype{}, nil, err
	}
	d, err := dt.get()
	if err != nil {
		return pmpi.Datatype{}, nil, err
	}
	buf, err := packed(op, p, size)
	return d, buf, err
}

func pack(in unsafe.Pointer, count int, dt Datatype, out unsafe.Pointer, size, pos int, comm Comm) (int, error) {
	d, buf, err := packArgs("pack", comm, dt, out, size)
	if err != nil {
		return pos, err
	}
	b, d := buffer(in, count, d)
	return api().Pack(b, count, d, buf, pos)
}

func mpiPack[N cInt](in unsafe.Pointer, count int, dt Datatype, out unsafe.Pointer, size int, pos *N, comm Comm) error {
	p, err := pack(in, count, dt, out, size, int(*pos), comm)
	*pos = N(p)
	return err
}

func unpack(in unsafe.Pointer, size, pos int, out unsafe.Pointer, count int, dt Datatype, comm Comm) (int, error) {
	d, buf, err := packArgs("unpack", comm, dt, in, size)
	if err != nil {
		return pos, err
	}
	b, d := buffer(out, count, d)
	return api().Unpack(buf, pos, b, count, d)
}

func mpiUnpack[N cInt](in unsafe.Pointer, size int, pos *N, out unsafe.Pointer, count int, dt Datatype, comm Comm) error {
	p, err := unpack(in, size, int(*pos), out, count, dt, comm)
	*pos = N(p)
	return err
}

func packSize(count int, dt Datatype, comm Comm) (int, error) {
	if _, err := comm.get(); err != nil {
		return 0, err
	}
	d, err := dt.get()
	if err != nil {
		return 0, err
	}
	return api().PackSize(count, d)
}

func mpiPackSize[N cInt](count int, dt Datatype, comm Comm, size *N) error {
	n, err := packSize(count, dt, comm)
	if err == nil {
		*size = N(n)
	}
	return err
}

func packExternal(rep *C.char, in unsafe.Pointer, count int, dt Datatype, out unsafe.Pointer, size, pos int) (int, error) {
	const op = "pack external"
	d, err := dt.get()
	if err != nil {
		return pos, err
	}
	buf, err := packed(op, out, size)
	if err != nil {
		return pos, err
	}
	b, d := buffer(in, count, d)
	return api().PackExternal(C.GoString(rep), b, count, d, buf, pos)
}

func mpiPackExternal[N cInt](rep *C.char, in unsafe.Pointer, count int, dt Datatype, out unsafe.Pointer, size int, pos *N) error {
	p, err := packExternal(rep, in, count, dt, out, size, int(*pos))
	*pos = N(p)
	return err
}

func unpackExternal(rep *C.char, in unsafe.Pointer, size, pos int, out unsafe.Pointer, count int, dt Datatype) (int, error) {
	const op = "unpack external"
	d, err := dt.get()
	if err != nil {
		return pos, err
	}
	buf, err := packed(op, in, size)
	if err != nil {
		return pos, err
	}
	b, d := buffer(out, count, d)
	return api().UnpackExternal(C.GoString(rep), buf, pos, b, count, d)
}

func mpiUnpackExternal[N cInt](rep *C.char, in unsafe.Pointer, size int, pos *N, out unsafe.Pointer, count int, dt Datatype) error {
	p, err := unpackExternal(rep, in, size, int(*pos), out, count, dt)
	*pos = N(p)
	return err
}

func packExternalSize(rep *C.char, count int, dt Datatype) (int, error) {
	d, err := dt.get()
	if err != nil {
		return 0, err
	}
	return api().PackExternalSize(C.GoString(rep), count, d)
}

func mpiPackExternalSize[N cInt](rep *C.char, count int, dt Datatype, size *N) error {
	n, err := packExternalSize(rep, count, dt)
	if err == nil {
		*size = N(n)
	}
	return err
}
