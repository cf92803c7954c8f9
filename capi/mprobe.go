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

// msgEntry is a matched message and the communicator it came on, whose
// error handler its receive's errors go to.
type msgEntry struct {
	m    pmpi.Message
	comm *commEntry
}

// setMessage gives a matched message its handle: MPI_MESSAGE_NO_PROC for
// what a probe of MPI_PROC_NULL finds.
func setMessage(out *Message, m pmpi.Message, e *commEntry) error {
	if m == pmpi.MessageNoProc {
		*out = MPI_MESSAGE_NO_PROC
		return nil
	}
	h, err := lib.msgs.put(&msgEntry{m, e})
	if err != nil {
		return err
	}
	*out = Message(h)
	return nil
}

func mpiMprobe(source, t int, h Comm, out *Message, st *C.MPI_Status) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	m, s, err := api().Mprobe(rank(source), tag(t), e.c)
	if err != nil {
		return err
	}
	putStatus(st, &s)
	return setMessage(out, m, e)
}

func mpiImprobe(source, t int, h Comm, flag *C.int, out *Message, st *C.MPI_Status) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	m, s, found, err := api().Improbe(rank(source), tag(t), e.c)
	if err != nil {
		return err
	}
	*flag = cbool(found)
	if !found {
		*out = MPI_MESSAGE_NULL
		return nil
	}
	putStatus(st, &s)
	return setMessage(out, m, e)
}

// get is the message behind h, for op, a receive of it.
func (h Message) get(op string) (*msgEntry, error) {
	switch h {
	case MPI_MESSAGE_NO_PROC:
		return &msgEntry{m: pmpi.MessageNoProc, comm: lib.self.Load()}, nil
	case MPI_MESSAGE_NULL:
		return nil, errorf(pmpi.ClassRequest, "%s: MPI_MESSAGE_NULL is no message (received already, or never probed)", op)
	}
	if e := lib.msgs.get(uintptr(h)); e != nil {
		return e, nil
	}
	return nil, errorf(pmpi.ClassRequest, "%s: %#x is not a message (received already, or never one)", op, uintptr(h))
}

// received forgets *h once gompi has taken its message, which it marks
// by leaving m MessageNull.
func received(h *Message, m *pmpi.Message) {
	if *m == pmpi.MessageNull {
		lib.msgs.drop(uintptr(*h))
		*h = MPI_MESSAGE_NULL
	}
}

func mpiMrecv(buf unsafe.Pointer, count int, dt Datatype, h *Message, st *C.MPI_Status) error {
	d, err := dt.get()
	if err != nil {
		d, err = noData(dt, count, err)
	}
	if err != nil {
		return err
	}
	e, err := h.get("mrecv")
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	s, err := api().Mrecv(b, count, d, &e.m)
	received(h, &e.m)
	putStatus(st, &s)
	if err != nil {
		return &onComm{e.comm, err}
	}
	return nil
}

func mpiImrecv(buf unsafe.Pointer, count int, dt Datatype, h *Message, req *Request) error {
	d, err := dt.get()
	if err != nil {
		d, err = noData(dt, count, err)
	}
	if err != nil {
		return err
	}
	e, err := h.get("imrecv")
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	r, err := api().Imrecv(b, count, d, &e.m)
	received(h, &e.m)
	if err != nil {
		return &onComm{e.comm, err}
	}
	return newRequest(req, r, e.comm, false)
}
