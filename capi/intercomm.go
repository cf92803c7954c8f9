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

// mpiIntercommCreate: only the leaders read peer, as MPI says, so the
// others may pass anything (MPI_COMM_NULL).
func mpiIntercommCreate(local Comm, localLeader int, peer Comm, remoteLeader, t int, out *Comm) error {
	e, err := local.get()
	if err != nil {
		return err
	}
	var p *pmpi.Comm
	if e.c.Rank() == localLeader {
		if p, err = peer.comm(); err != nil {
			// pmpi's leader, finding no peer, fails its whole group.
			return takePart(err, func() (*pmpi.Comm, error) {
				return api().IntercommCreate(e.c, localLeader, nil, remoteLeader, tag(t))
			})
		}
	} else {
		p, _ = peer.comm() // for the tools; nil if peer is none
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
