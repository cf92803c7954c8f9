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
	if out == nil {
		return nullIntercomm(nullArg("newintercomm"), e.c, localLeader, func(leader int) (*pmpi.Comm, error) {
			return api().IntercommCreate(e.c, leader, p, remoteLeader, tag(t))
		})
	}
	c, err := api().IntercommCreate(e.c, localLeader, p, remoteLeader, tag(t))
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}

// noLeader is a local leader out of range for every group: the stand-in
// of nullIntercomm.
const noLeader = -1

// nullIntercomm returns err, the error of a NULL address for the new
// intercommunicator, after taking part in the making of one over local,
// whose local leader this rank passed, through create. pmpi checks the
// local leaders first, over the group: where the group has other ranks,
// this rank passes a stand-in out of range (noLeader), which every rank of
// both groups then fails on, naming this rank, as long as the group's
// other ranks agree on their leader. A rank alone in its group has none to
// agree with it, so its mark would not reach the other group: it makes
// the intercommunicator and frees it, and the other group succeeds.
func nullIntercomm(err error, local *pmpi.Comm, localLeader int, create func(localLeader int) (*pmpi.Comm, error)) error {
	if local.Size() > 1 {
		return takePart(err, func() (*pmpi.Comm, error) { return create(noLeader) })
	}
	return makeAndFree(err, func() (*pmpi.Comm, *pmpi.Request, error) {
		c, err := create(localLeader)
		return c, nil, err
	})
}

func mpiIntercommMerge(h Comm, high int, out *Comm) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if out == nil {
		// The merge's exchange carries no mark of a rank's bad arguments:
		// this rank merges and frees the result, and the others succeed.
		return makeAndFree(nullArg("newintracomm"), func() (*pmpi.Comm, *pmpi.Request, error) {
			c, err := api().IntercommMerge(e.c, high != 0)
			return c, nil, err
		})
	}
	c, err := api().IntercommMerge(e.c, high != 0)
	if err != nil {
		return err
	}
	return setComm(out, c, e)
}
