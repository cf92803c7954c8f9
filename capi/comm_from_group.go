package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"hash/fnv"

	"github.com/gompi/gompi/pmpi"
)

// MPI 4's constructors from groups. A group, a session's or a
// communicator's, holds processes of MPI_COMM_WORLD, which holds every
// process; a session's keeps its scope (the session's buffer for buffered
// sends) for the communicators made from it. The communicator is made
// over the group alone, as
// MPI_Comm_create_group makes it from world, on a tag that stringtag
// gives, so that calls of other stringtags may run at once on groups that
// overlap; the intercommunicator's leaders then meet over world with the
// same tag, as MPI_Intercomm_create's do.

// groupArgs checks what both constructors take: a group, an info and a
// stringtag, which it turns into a tag: 30 bits of its FNV-1a hash, below
// every tag bound.
func groupArgs(op string, gh Group, ih Info, stringtag *C.char) (*pmpi.Group, int, error) {
	g, err := gh.get()
	if err != nil {
		return nil, 0, err
	}
	if _, err := ih.optional(); err != nil {
		return nil, 0, err
	}
	if stringtag == nil {
		return nil, 0, errorf(pmpi.ClassArg, "%s: the stringtag is NULL", op)
	}
	str := C.GoString(stringtag)
	if len(str) >= C.MPI_MAX_STRINGTAG_LEN {
		return nil, 0, errorf(pmpi.ClassArg, "%s: the stringtag has %d characters (at most %d)", op, len(str), C.MPI_MAX_STRINGTAG_LEN-1)
	}
	h := fnv.New32a()
	h.Write([]byte(str))
	return g, int(h.Sum32() >> 2), nil
}

// runtimeWorld is the communicator of every rank, which a session's
// communicators are made over, even after MPI_Finalize.
func runtimeWorld() (*commEntry, error) {
	if w := lib.world.Load(); w != nil {
		return w, nil
	}
	return nil, errorf(pmpi.ClassOther, "MPI is not running: call MPI_Session_init or MPI_Init first")
}

// fromGroup makes the intracommunicator of group g over world with tag t,
// in an entry whose error handler is eh.
func fromGroup(g *pmpi.Group, t int, eh Errhandler) (*commEntry, error) {
	if err := eh.check(); err != nil {
		return nil, err
	}
	w, err := runtimeWorld()
	if err != nil {
		return nil, err
	}
	c, err := api().CommCreateGroup(w.c, g, t)
	if err != nil {
		return nil, err
	}
	return withHandler(c, eh), nil
}

// withHandler is an entry of c whose error handler is eh, for setComm
// to give the new handle.
func withHandler(c *pmpi.Comm, eh Errhandler) *commEntry {
	e := &commEntry{c: c, session: true}
	e.errh.Store(uintptr(eh))
	return e
}

// onHandler is an error of MPI_Comm_create_from_group or
// MPI_Intercomm_create_from_groups, which MPI raises on the error handler
// they are given, the new communicator's: a user's is called with
// MPI_COMM_NULL.
type onHandler struct {
	eh  Errhandler
	err error
}

func (e *onHandler) Error() string { return e.err.Error() }
func (e *onHandler) Unwrap() error { return e.err }

// onEh makes f's errors onHandler errors of eh, once eh is known to be a
// handler: an invalid one is raised as usual.
func onEh(eh Errhandler, f func() error) error {
	if err := eh.check(); err != nil {
		return err
	}
	if err := f(); err != nil {
		return &onHandler{eh, err}
	}
	return nil
}

func mpiCommCreateFromGroup(gh Group, stringtag *C.char, ih Info, eh Errhandler, out *Comm) error {
	return onEh(eh, func() error {
		return commFromGroup(gh, stringtag, ih, eh, out)
	})
}

// commFromGroup: a rank whose group, stringtag or info is invalid fails
// alone, and the other members wait for it; without its group or its
// stringtag it cannot know the members it would meet or the tag they meet
// on.
func commFromGroup(gh Group, stringtag *C.char, ih Info, eh Errhandler, out *Comm) error {
	g, t, err := groupArgs("comm create from group", gh, ih, stringtag)
	if err != nil {
		return err
	}
	if out == nil {
		// The exchange, MPI_Comm_create_group's, carries no mark of a
		// rank's bad arguments: this rank makes the communicator and
		// frees it, and the others succeed.
		return makeAndFree(nullArg("newcomm"), func() (*pmpi.Comm, *pmpi.Request, error) {
			e, err := fromGroup(g, t, eh)
			if err != nil {
				return nil, nil, err
			}
			return e.c, nil, nil
		})
	}
	e, err := fromGroup(g, t, eh)
	if err != nil {
		return err
	}
	return setComm(out, e.c, e)
}

func mpiIntercommCreateFromGroups(lh Group, localLeader int, rh Group, remoteLeader int, stringtag *C.char, ih Info, eh Errhandler, out *Comm) error {
	return onEh(eh, func() error {
		return intercommFromGroups(lh, localLeader, rh, remoteLeader, stringtag, ih, eh, out)
	})
}

func intercommFromGroups(lh Group, localLeader int, rh Group, remoteLeader int, stringtag *C.char, ih Info, eh Errhandler, out *Comm) error {
	const op = "intercomm create from groups"
	local, t, err := groupArgs(op, lh, ih, stringtag)
	if err != nil {
		return err
	}
	remote, err := rh.get()
	if err != nil {
		return err
	}
	if remoteLeader < 0 || remoteLeader >= remote.Size() {
		return errorf(pmpi.ClassRank, "%s: the remote leader %d is out of range (0 to %d)", op, remoteLeader, remote.Size()-1)
	}
	le, err := fromGroup(local, t, eh)
	if err != nil {
		return err
	}
	w, err := runtimeWorld()
	if err != nil {
		return err
	}
	// Straight to pmpi: the program made no group calls for the tools to see.
	wg, err := pmpi.Real().CommGroup(w.c)
	if err != nil {
		return err
	}
	leader, err := pmpi.Real().GroupTranslateRanks(remote, []int{remoteLeader}, wg)
	if err != nil {
		return err
	}
	var ic *pmpi.Comm
	if out == nil {
		// As MPI_Intercomm_create's, over the local group's communicator.
		err = nullIntercomm(nullArg("newintercomm"), le.c, localLeader, func(localLeader int) (*pmpi.Comm, error) {
			return api().IntercommCreate(le.c, localLeader, w.c, leader[0], t)
		})
	} else {
		ic, err = api().IntercommCreate(le.c, localLeader, w.c, leader[0], t)
	}
	if ferr := api().CommFree(le.c); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	return setComm(out, ic, withHandler(ic, eh))
}
