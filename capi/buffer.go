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

// bufferAutomatic is MPI_BUFFER_AUTOMATIC, ((void*)2).
const bufferAutomatic = 2

// attachable is the C buffer p of size bytes for a buffered send's use:
// gompi's BufferAutomatic for MPI_BUFFER_AUTOMATIC.
func attachable(op string, p unsafe.Pointer, size int) ([]byte, error) {
	if uintptr(p) == bufferAutomatic {
		return pmpi.BufferAutomatic, nil
	}
	if size < 0 {
		return nil, errorf(pmpi.ClassArg, "%s: size %d is negative", op, size)
	}
	if p == nil && size > 0 {
		return nil, errorf(pmpi.ClassBuffer, "%s: the buffer is NULL", op)
	}
	return unsafe.Slice((*byte)(p), size), nil
}

// detached stores a detached buffer's address at addr (a void ** in C):
// MPI_BUFFER_AUTOMATIC for gompi's BufferAutomatic. It returns its size.
func detached(addr unsafe.Pointer, b []byte) int {
	if unsafe.SliceData(b) == unsafe.SliceData(pmpi.BufferAutomatic) {
		*(*uintptr)(addr) = bufferAutomatic
		return 0
	}
	*(*unsafe.Pointer)(addr) = unsafe.Pointer(unsafe.SliceData(b))
	return len(b)
}

func mpiCommAttachBuffer(h Comm, p unsafe.Pointer, size int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	b, err := attachable("comm attach buffer", p, size)
	if err != nil {
		return err
	}
	return api().CommAttachBuffer(c, b)
}

func commDetach(h Comm, addr unsafe.Pointer) (int, error) {
	c, err := h.comm()
	if err != nil {
		return 0, err
	}
	if addr == nil {
		return 0, errorf(pmpi.ClassArg, "comm detach buffer: the address to store the buffer's at is NULL")
	}
	b, err := api().CommDetachBuffer(c)
	if err != nil {
		return 0, err
	}
	return detached(addr, b), nil
}

func mpiCommDetachBuffer[N cInt](h Comm, addr unsafe.Pointer, size *N) error {
	n, err := commDetach(h, addr)
	if err == nil {
		*size = N(n)
	}
	return err
}

func mpiCommFlushBuffer(h Comm) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	return api().CommBufferFlush(c)
}

func mpiCommIflushBuffer(h Comm, req *Request) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	r, err := api().CommBufferIflush(e.c)
	if err != nil {
		return err
	}
	return newRequest(req, r, e, false)
}

func mpiBufferFlush() error { return api().BufferFlush() }

// mpiBufferIflush: the process's buffer belongs to no communicator; the
// request's errors go to MPI_COMM_SELF's handler.
func mpiBufferIflush(req *Request) error {
	r, err := api().BufferIflush()
	if err != nil {
		return err
	}
	return newRequest(req, r, lib.self.Load(), false)
}

func mpiSessionAttachBuffer(h Session, p unsafe.Pointer, size int) error {
	return session(h, func(e *sessionEntry) error {
		b, err := attachable("session attach buffer", p, size)
		if err != nil {
			return err
		}
		return e.scope.AttachBuffer(b)
	})
}

func mpiSessionDetachBuffer[N cInt](h Session, addr unsafe.Pointer, size *N) error {
	return session(h, func(e *sessionEntry) error {
		if addr == nil {
			return errorf(pmpi.ClassArg, "session detach buffer: the address to store the buffer's at is NULL")
		}
		b, err := e.scope.DetachBuffer()
		if err == nil {
			*size = N(detached(addr, b))
		}
		return err
	})
}

func mpiSessionFlushBuffer(h Session) error {
	return session(h, func(e *sessionEntry) error { return e.scope.FlushBuffer() })
}

// mpiSessionIflushBuffer: the request's errors go to MPI_COMM_SELF's
// handler, as the process buffer's do.
func mpiSessionIflushBuffer(h Session, req *Request) error {
	return session(h, func(e *sessionEntry) error {
		r, err := e.scope.IflushBuffer()
		if err != nil {
			return err
		}
		return newRequest(req, r, lib.self.Load(), false)
	})
}
