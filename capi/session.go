package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
void gompi_call_session_errhandler(void *fn, uintptr_t session, int code);
void gompi_end_at_exit(void);
extern int gompi_world_model;
static inline void gompi_set_world_model(int w) { __atomic_store_n(&gompi_world_model, w, __ATOMIC_RELEASE); }
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// Sessions (MPI 4) share one runtime with the World Model: the first of
// MPI_Init and MPI_Session_init starts it. MPI_Finalize ends it when no
// session is live; otherwise, and when only sessions ever used it, it ends
// as the process exits (gompiEndAtExit), so that a session may be started
// again after the others were finalized, as MPI allows. Once ended it does
// not start again. A session's process sets are mpi://WORLD and mpi://SELF; its
// groups make communicators through MPI_Comm_create_from_group.

// model is who holds the runtime.
type model struct {
	mu       sync.Mutex
	world    atomic.Int32 // worldNone, worldRunning or worldFinalized
	thread   atomic.Int32 // the level MPI_Init or MPI_Init_thread provided
	sessions atomic.Int32 // live sessions: the gate (gate.go) reads it without mu
	atExit   bool
}

const (
	worldNone = iota
	worldRunning
	worldFinalized
)

// setWorld sets the World Model's state, here and in C, where a child
// that fork() made reads it (fork.c).
func (m *model) setWorld(w int32) {
	m.world.Store(w)
	C.gompi_set_world_model(C.int(w))
}

// sessionEntry is a session: its error handler, the info it was started
// with (nil for none) and the scope of its groups and communicators, which
// holds its buffer for buffered sends.
type sessionEntry struct {
	errh  atomic.Uintptr
	info  *pmpi.Info
	scope *pmpi.BufferScope
}

func (h Session) get() (*sessionEntry, error) {
	if e := lib.sessions.get(uintptr(h)); e != nil {
		return e, nil
	}
	if h == MPI_SESSION_NULL {
		return nil, &abiError{C.MPI_ERR_SESSION, "MPI_SESSION_NULL is not a session"}
	}
	return nil, &abiError{C.MPI_ERR_SESSION, fmt.Sprintf("%#x is not a session (finalized, or never one)", uintptr(h))}
}

// onSession is an error of a session call, raised on the session's error
// handler (eh for MPI_Session_init, which has no session yet).
type onSession struct {
	h   Session
	eh  Errhandler
	err error
}

func (e *onSession) Error() string { return e.err.Error() }
func (e *onSession) Unwrap() error { return e.err }

// onSessionOf wraps err, if any, to be raised on session h.
func onSessionOf(h Session, e *sessionEntry, err error) error {
	if err == nil {
		return nil
	}
	return &onSession{h, Errhandler(e.errh.Load()), err}
}

// raiseOnSession runs the session's error handler for err, of class code.
func raiseOnSession(fn string, s *onSession, code int) int {
	return raiseTo(fn, s.eh, fmt.Sprintf("on session %#x", uintptr(s.h)), s.err, code, func(f unsafe.Pointer, code C.int) {
		C.gompi_call_session_errhandler(f, C.uintptr_t(s.h), code)
	})
}

// startRuntime starts gompi's runtime for the World Model or a session,
// unless it runs. Called with lib.model.mu held.
func startRuntime(init func() error) error {
	if api().Finalized() {
		return errorf(pmpi.ClassOther, "MPI was finalized in this process, and gompi cannot start it again")
	}
	if api().Initialized() {
		return nil
	}
	if err := init(); err != nil {
		return err
	}
	return started()
}

func initWorld(thread int, init func() error) error {
	m := &lib.model
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.world.Load() != worldNone {
		return init() // its error says MPI was initialised or finalized already
	}
	if err := startRuntime(init); err != nil {
		return err
	}
	m.thread.Store(int32(thread))
	m.setWorld(worldRunning)
	knowWorld()
	return nil
}

// finalizeWorld is MPI_Finalize: the end of the World Model, and of the
// runtime unless a session is live.
func finalizeWorld() error {
	flushStdio() // before a peer past Finalize can fail and have this rank stopped
	m := &lib.model
	m.mu.Lock()
	defer m.mu.Unlock()
	forgetWorld() // not known before MPI_Init or after a first MPI_Finalize either
	switch w := m.world.Load(); {
	case w == worldFinalized:
		// Not api().Finalize: sessions may still hold the runtime.
		return errorf(pmpi.ClassOther, "Finalize: MPI_Finalize was called already")
	case w == worldNone && api().Initialized():
		return errorf(pmpi.ClassOther, "Finalize: MPI_Init was not called (only sessions run)")
	case w == worldNone:
		return api().Finalize() // its error says MPI is not initialised
	case m.sessions.Load() > 0:
		m.setWorld(worldFinalized)
		return endAtExit()
	}
	if err := api().Finalize(); err != nil {
		return err
	}
	stopSched()
	m.setWorld(worldFinalized)
	return nil
}

// endAtExit has the runtime end as the process exits. Called with
// lib.model.mu held.
func endAtExit() error {
	if !lib.model.atExit {
		lib.model.atExit = true
		C.gompi_end_at_exit()
	}
	return nil
}

// gompiEndAtExit ends the runtime as the process exits, when sessions
// kept it (with no MPI_Init, or after MPI_Finalize) and every session was
// finalized. A process that exits with a session live, or after MPI_Init
// without MPI_Finalize, is left to the launcher, which reports it, rather
// than waiting at the exit for ranks that may wait for it.
//
//export gompiEndAtExit
func gompiEndAtExit() {
	m := &lib.model
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.world.Load() == worldRunning || m.sessions.Load() > 0 || !api().Initialized() || api().Finalized() {
		return
	}
	if err := api().Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "gompi: ending MPI as the process exits: %v\n", err)
	}
	stopSched()
}

// threadLevelNames are the values of a session's thread_level info key;
// the library provides the one asked, MPI_THREAD_MULTIPLE if none is.
var threadLevelNames = map[string]bool{"MPI_THREAD_SINGLE": true, "MPI_THREAD_FUNNELED": true, "MPI_THREAD_SERIALIZED": true, "MPI_THREAD_MULTIPLE": true}

func mpiSessionInit(ih Info, eh Errhandler, out *Session) error {
	if err := eh.check(); err != nil {
		return err
	}
	fail := func(err error) error { return &onSession{MPI_SESSION_NULL, eh, err} }
	info, err := ih.optional()
	if err == nil && info != nil {
		info, err = pmpi.Real().InfoDup(info)
	}
	if err != nil {
		return fail(err)
	}
	if info != nil {
		if v, ok, _ := pmpi.Real().InfoGet(info, "thread_level"); ok && !threadLevelNames[v] {
			return fail(errorf(pmpi.ClassInfoValue, "session init: info thread_level is %q (want MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE)", v))
		}
	}
	m := &lib.model
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := startRuntime(func() error {
		_, err := mpi.InitThread(pmpi.ThreadMultiple)
		return err
	}); err != nil {
		return fail(fmt.Errorf("session init: %w", err))
	}
	e := &sessionEntry{info: info}
	e.errh.Store(uintptr(eh))
	h, err := lib.sessions.put(e)
	if err != nil {
		return fail(err)
	}
	e.scope = pmpi.NewBufferScope(fmt.Sprintf("session %#x", h))
	m.sessions.Add(1)
	*out = Session(h)
	return endAtExit()
}

func mpiSessionFinalize(h *Session) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if !lib.sessions.drop(uintptr(*h)) {
		return onSessionOf(*h, e, &abiError{C.MPI_ERR_SESSION, fmt.Sprintf("session finalize: %#x was finalized meanwhile", uintptr(*h))})
	}
	e.scope.End()
	lib.model.mu.Lock()
	lib.model.sessions.Add(-1)
	lib.model.mu.Unlock()
	if e.info != nil {
		_ = pmpi.Real().InfoFree(e.info)
	}
	*h = MPI_SESSION_NULL
	return nil
}

// The process sets a session offers.
var psets = []string{"mpi://WORLD", "mpi://SELF"}

// pset is the communicator whose group process set name is; MPI's names
// are matched without regard to case.
func pset(op string, cname *C.char) (*pmpi.Comm, error) {
	if cname == nil {
		return nil, errorf(pmpi.ClassArg, "%s: the name is NULL", op)
	}
	name := C.GoString(cname)
	var c *commEntry
	switch {
	case strings.EqualFold(name, psets[0]):
		c = lib.world.Load()
	case strings.EqualFold(name, psets[1]):
		c = lib.self.Load()
	default:
		return nil, errorf(pmpi.ClassArg, "%s: no process set is named %q (there are %s)", op, name, strings.Join(psets, " and "))
	}
	if c == nil {
		return nil, errorf(pmpi.ClassOther, "%s: MPI was finalized", op)
	}
	return c.c, nil
}

// session runs f on session h's entry, raising its error on the session.
func session(h Session, f func(e *sessionEntry) error) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	return onSessionOf(h, e, f(e))
}

func mpiSessionGetNumPsets(h Session, ih Info, n *C.int) error {
	return session(h, func(*sessionEntry) error {
		if _, err := ih.optional(); err != nil {
			return err
		}
		*n = C.int(len(psets))
		return nil
	})
}

func mpiSessionGetNthPset(h Session, ih Info, n int, size *C.int, name *C.char) error {
	return session(h, func(*sessionEntry) error {
		if _, err := ih.optional(); err != nil {
			return err
		}
		if n < 0 || n >= len(psets) {
			return errorf(pmpi.ClassArg, "session get nth pset: n is %d (0 to %d)", n, len(psets)-1)
		}
		if *size < 0 {
			return errorf(pmpi.ClassArg, "session get nth pset: pset_len is %d (0 to ask for the length)", *size)
		}
		if *size > 0 { // 0 asks for the length only
			if name == nil {
				return errorf(pmpi.ClassArg, "session get nth pset: pset_name is NULL, pset_len %d (0 asks for the length alone)", *size)
			}
			putString(name, psets[n], int(*size))
		}
		*size = C.int(len(psets[n]) + 1) // what the name needs, its NUL included
		return nil
	})
}

func mpiSessionGetPsetInfo(h Session, name *C.char, out *Info) error {
	return session(h, func(*sessionEntry) error {
		c, err := pset("session get pset info", name)
		if err != nil {
			return err
		}
		info := pmpi.Real().InfoCreate()
		if err := pmpi.Real().InfoSet(info, "mpi_size", fmt.Sprint(c.Size())); err != nil {
			return err
		}
		hi, err := lib.infos.put(info)
		*out = Info(hi)
		return err
	})
}

func mpiGroupFromSessionPset(h Session, name *C.char, out *Group) error {
	return session(h, func(e *sessionEntry) error {
		c, err := pset("group from session pset", name)
		if err != nil {
			return err
		}
		// Straight to pmpi: the program made no MPI_Comm_group call for
		// the tools to see.
		g, err := pmpi.Real().CommGroup(c)
		if err != nil {
			return err
		}
		hg, err := lib.groups.put(g.WithScope(e.scope))
		*out = Group(hg)
		return err
	})
}

// mpiSessionGetInfo gives the info the session was started with and the
// thread level it provides.
func mpiSessionGetInfo(h Session, out *Info) error {
	return session(h, func(e *sessionEntry) error {
		info := pmpi.Real().InfoCreate()
		if e.info != nil {
			var err error
			if info, err = pmpi.Real().InfoDup(e.info); err != nil {
				return err
			}
		}
		if _, asked, _ := pmpi.Real().InfoGet(info, "thread_level"); !asked {
			if err := pmpi.Real().InfoSet(info, "thread_level", "MPI_THREAD_MULTIPLE"); err != nil {
				return err
			}
		}
		hi, err := lib.infos.put(info)
		*out = Info(hi)
		return err
	})
}

func mpiSessionCreateErrhandler(fn unsafe.Pointer, out *Errhandler) error {
	return createErrhandler("session create errhandler", fn, out)
}

func mpiSessionSetErrhandler(h Session, eh Errhandler) error {
	return session(h, func(e *sessionEntry) error {
		if err := eh.check(); err != nil {
			return err
		}
		e.errh.Store(uintptr(eh))
		return nil
	})
}

func mpiSessionGetErrhandler(h Session, out *Errhandler) error {
	return session(h, func(e *sessionEntry) error {
		*out = handOut(Errhandler(e.errh.Load()))
		return nil
	})
}

func mpiSessionCallErrhandler(h Session, code int) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	raise("MPI_Session_call_errhandler", 0, onSessionOf(h, e, &abiError{code, fmt.Sprintf("error code %d raised by MPI_Session_call_errhandler", code)}))
	return nil
}
