package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "github.com/gompi/gompi/pmpi"

func mpiCommTestInter(h Comm, flag *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	inter, err := api().CommTestInter(c)
	*flag = cbool(inter)
	return err
}

func mpiCommRemoteSize(h Comm, n *C.int) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	s, err := api().CommRemoteSize(c)
	*n = C.int(s)
	return err
}

func mpiCommRemoteGroup(h Comm, out *Group) error {
	c, err := h.comm()
	if err != nil {
		return err
	}
	g, err := api().CommRemoteGroup(c)
	return setGroup(out, g, err)
}

// mpiIntercommCreate: only the leaders read peer, so the others may pass
// MPI_COMM_NULL.
func mpiIntercommCreate(local Comm, localLeader int, peer Comm, remoteLeader, t int, out *Comm) error {
	e, err := local.get()
	if err != nil {
		return err
	}
	var p *pmpi.Comm
	if peer != MPI_COMM_NULL {
		if p, err = peer.comm(); err != nil {
			return err
		}
	}
	c, err := api().IntercommCreate(e.c, localLeader, p, remoteLeader, tag(t))
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

func mpiIntercommMerge(h Comm, high int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	c, err := api().IntercommMerge(e.c, high != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}
