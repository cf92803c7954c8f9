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

// resolve looks up the communicator and the datatype of count elements
// that a call names.
func resolve(h Comm, dt Datatype, count int) (*commEntry, pmpi.Datatype, error) {
	e, err := h.get()
	if err != nil {
		return nil, pmpi.Datatype{}, err
	}
	d, err := dt.get()
	if err != nil {
		d, err = noData(dt, count, err)
	}
	return e, d, err
}

// sendFunc and the like are gompi's point-to-point calls of one shape,
// so that each mode's C function is one line.
type (
	sendFunc  func(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) error
	isendFunc func(buf []byte, count int, dt pmpi.Datatype, dest, tag int, comm *pmpi.Comm) (*pmpi.Request, error)
)

func send(f sendFunc, buf unsafe.Pointer, count int, dt Datatype, dest, t int, h Comm) error {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	return f(b, count, d, rank(dest), tag(t), e.c)
}

// isend starts a request; persistent ones (the _init calls) stay until
// MPI_Request_free.
func isend(f isendFunc, persistent bool, buf unsafe.Pointer, count int, dt Datatype, dest, t int, h Comm, req *Request) error {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	r, err := f(b, count, d, rank(dest), tag(t), e.c)
	if err != nil {
		return err
	}
	return newRequest(req, r, e, persistent)
}

func mpiSend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm) error {
	return send(api().Send, buf, count, dt, dest, tag, h)
}

func mpiSsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm) error {
	return send(api().Ssend, buf, count, dt, dest, tag, h)
}

func mpiRsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm) error {
	return send(api().Rsend, buf, count, dt, dest, tag, h)
}

func mpiBsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm) error {
	return send(api().Bsend, buf, count, dt, dest, tag, h)
}

func mpiIsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().Isend, false, buf, count, dt, dest, tag, h, req)
}

func mpiIssend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().Issend, false, buf, count, dt, dest, tag, h, req)
}

func mpiIrsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().Irsend, false, buf, count, dt, dest, tag, h, req)
}

func mpiIbsend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().Ibsend, false, buf, count, dt, dest, tag, h, req)
}

func mpiIrecv(buf unsafe.Pointer, count int, dt Datatype, source, tag int, h Comm, req *Request) error {
	return isend(api().Irecv, false, buf, count, dt, source, tag, h, req)
}

func mpiSendInit(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().SendInit, true, buf, count, dt, dest, tag, h, req)
}

func mpiSsendInit(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().SsendInit, true, buf, count, dt, dest, tag, h, req)
}

func mpiRsendInit(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().RsendInit, true, buf, count, dt, dest, tag, h, req)
}

func mpiBsendInit(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, h Comm, req *Request) error {
	return isend(api().BsendInit, true, buf, count, dt, dest, tag, h, req)
}

func mpiRecvInit(buf unsafe.Pointer, count int, dt Datatype, source, tag int, h Comm, req *Request) error {
	return isend(api().RecvInit, true, buf, count, dt, source, tag, h, req)
}

func mpiRecv(buf unsafe.Pointer, count int, dt Datatype, source, t int, h Comm, st *C.MPI_Status) error {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	s, err := api().Recv(b, count, d, rank(source), tag(t), e.c)
	putStatus(st, &s)
	return err
}

func mpiSendrecv(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, source, recvtag int, h Comm, st *C.MPI_Status) error {
	e, sd, err := resolve(h, sendtype, sendcount)
	if err != nil {
		return err
	}
	rd, err := recvtype.get()
	if err != nil {
		rd, err = noData(recvtype, recvcount, err)
	}
	if err != nil {
		return err
	}
	sb, sd := buffer(sendbuf, sendcount, sd)
	rb, rd := buffer(recvbuf, recvcount, rd)
	s, err := api().Sendrecv(sb, sendcount, sd, rank(dest), tag(sendtag), rb, recvcount, rd, rank(source), tag(recvtag), e.c)
	putStatus(st, &s)
	return err
}

func mpiSendrecvReplace(buf unsafe.Pointer, count int, dt Datatype, dest, sendtag, source, recvtag int, h Comm, st *C.MPI_Status) error {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	s, err := api().SendrecvReplace(b, count, d, rank(dest), tag(sendtag), rank(source), tag(recvtag), e.c)
	putStatus(st, &s)
	return err
}

func mpiProbe(source, t int, h Comm, st *C.MPI_Status) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	s, err := api().Probe(rank(source), tag(t), c)
	putStatus(st, &s)
	return err
}

func mpiIprobe(source, t int, h Comm, flag *C.int, st *C.MPI_Status) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	a := api()
	mark := pmpi.ProbeMark()
	s, found, err := a.Iprobe(rank(source), tag(t), c)
	*flag = cbool(found)
	switch {
	case found:
		putStatus(st, &s)
	case err == nil:
		arm(nil, nil, &probe{source, t, h, mark})
	}
	return err
}

func mpiBufferAttach(buf unsafe.Pointer, size int) error {
	b, err := attachable("buffer attach", buf, size)
	if err != nil {
		return err
	}
	return api().BufferAttach(b)
}

// mpiBufferDetach stores the detached buffer's address at addr (a void **
// in C) and its size.
func mpiBufferDetach[N cInt](addr unsafe.Pointer, size *N) error {
	b, err := api().BufferDetach()
	if err != nil {
		return err
	}
	*size = N(detached(addr, b))
	return nil
}

func mpiIsendrecv(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, source, recvtag int, h Comm, req *Request) error {
	e, sd, err := resolve(h, sendtype, sendcount)
	if err != nil {
		return err
	}
	rd, err := recvtype.get()
	if err != nil {
		rd, err = noData(recvtype, recvcount, err)
	}
	if err != nil {
		return err
	}
	sb, sd := buffer(sendbuf, sendcount, sd)
	rb, rd := buffer(recvbuf, recvcount, rd)
	r, err := api().Isendrecv(sb, sendcount, sd, rank(dest), tag(sendtag), rb, recvcount, rd, rank(source), tag(recvtag), e.c)
	if err != nil {
		return err
	}
	return newRequest(req, r, e, false)
}

func mpiIsendrecvReplace(buf unsafe.Pointer, count int, dt Datatype, dest, sendtag, source, recvtag int, h Comm, req *Request) error {
	e, d, err := resolve(h, dt, count)
	if err != nil {
		return err
	}
	b, d := buffer(buf, count, d)
	r, err := api().IsendrecvReplace(b, count, d, rank(dest), tag(sendtag), rank(source), tag(recvtag), e.c)
	if err != nil {
		return err
	}
	return newRequest(req, r, e, false)
}
