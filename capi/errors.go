package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
void gompi_call_comm_errhandler(void *fn, uintptr_t comm, int code);
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/pmpi"
)

// abiError is an error of a class that gompi's Go side does not have
// (MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_NO_MEM...).
type abiError struct {
	class int
	msg   string
}

func (e *abiError) Error() string { return e.msg }

func errorf(class pmpi.ErrorClass, format string, args ...any) error {
	return &pmpi.Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}

// nullArg is a NULL pointer where a call must read or write one value,
// which the generated glue checks. The fatal handler's message names the
// call.
func nullArg(param string) error {
	return errorf(pmpi.ClassArg, "%s is a NULL pointer (it must point to the value the call reads or writes)", param)
}

func errNoMem(what string, limit int) error {
	return &abiError{C.MPI_ERR_NO_MEM, fmt.Sprintf("out of %s: at most %d may be live at once", what, limit)}
}

// onComm is an error raised on a communicator other than the call's
// arguments name: a request's.
type onComm struct {
	e   *commEntry
	err error
}

func (e *onComm) Error() string { return e.err.Error() }
func (e *onComm) Unwrap() error { return e.err }

// classes maps gompi's error classes to the standard's.
var classes = map[pmpi.ErrorClass]int{
	pmpi.ClassBuffer: C.MPI_ERR_BUFFER, pmpi.ClassCount: C.MPI_ERR_COUNT, pmpi.ClassType: C.MPI_ERR_TYPE,
	pmpi.ClassTag: C.MPI_ERR_TAG, pmpi.ClassComm: C.MPI_ERR_COMM, pmpi.ClassRank: C.MPI_ERR_RANK,
	pmpi.ClassRequest: C.MPI_ERR_REQUEST, pmpi.ClassArg: C.MPI_ERR_ARG, pmpi.ClassTruncate: C.MPI_ERR_TRUNCATE,
	pmpi.ClassOther: C.MPI_ERR_OTHER, pmpi.ClassIntern: C.MPI_ERR_INTERN, pmpi.ClassProcFailed: C.MPI_ERR_PROC_ABORTED,
	pmpi.ClassInStatus: C.MPI_ERR_IN_STATUS, pmpi.ClassOp: C.MPI_ERR_OP, pmpi.ClassRoot: C.MPI_ERR_ROOT,
	pmpi.ClassGroup: C.MPI_ERR_GROUP, pmpi.ClassTopology: C.MPI_ERR_TOPOLOGY, pmpi.ClassDims: C.MPI_ERR_DIMS,
	pmpi.ClassKeyval: C.MPI_ERR_KEYVAL, pmpi.ClassInfoKey: C.MPI_ERR_INFO_KEY, pmpi.ClassInfoValue: C.MPI_ERR_INFO_VALUE,
	pmpi.ClassInfoNokey: C.MPI_ERR_INFO_NOKEY,
}

// classOf is the standard error class of err: a callback's own code
// where one failed, except in a call over several requests, which
// returns MPI_ERR_IN_STATUS whatever its requests' errors were.
func classOf(err error) int {
	var e *pmpi.Error
	hasPmpi := errors.As(err, &e)
	if hasPmpi && e.Class == pmpi.ClassInStatus {
		return C.MPI_ERR_IN_STATUS
	}
	var a *abiError
	if errors.As(err, &a) {
		return a.class
	}
	if hasPmpi {
		if c, ok := classes[e.Class]; ok {
			return c
		}
	}
	return C.MPI_ERR_OTHER
}

// done returns the error code of a call of function fn: 0, or err's
// class after the error handler of the communicator it concerns (h,
// MPI_COMM_SELF's for 0) has run. A fatal handler does not return; its
// message names fn.
func done(fn string, h Comm, err error) int {
	if err == nil {
		return 0
	}
	lib.lastErrs.note(fn, err)
	return raise(fn, h, err)
}

func raise(fn string, h Comm, err error) int {
	code := classOf(err)
	var se *onSession
	if errors.As(err, &se) {
		return raiseOnSession(fn, se, code)
	}
	var he *onHandler
	if errors.As(err, &he) {
		return raiseOnHandler(fn, he, code)
	}
	var e *commEntry
	var oc *onComm
	switch {
	case errors.As(err, &oc):
		e = oc.e
	case h != 0:
		e, _ = h.get()
	}
	if e == nil {
		h, e = MPI_COMM_SELF, lib.self.Load()
	}
	eh := Errhandler(MPI_ERRORS_ARE_FATAL)
	if e != nil {
		eh = Errhandler(e.errh.Load())
	}
	switch eh {
	case MPI_ERRORS_RETURN:
		return code
	case MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT:
		fatal(fn, e, eh, err, code)
	}
	if u := lib.errhs.get(uintptr(eh)); u != nil {
		if oc != nil {
			h = commHandle(oc.e, h)
		}
		C.gompi_call_comm_errhandler(u.fn, C.uintptr_t(h), C.int(code))
	}
	return code
}

// raiseOnHandler is raise for an onHandler.
func raiseOnHandler(fn string, e *onHandler, code int) int {
	return raiseTo(fn, e.eh, "", e.err, code, func(f unsafe.Pointer, code C.int) {
		C.gompi_call_comm_errhandler(f, C.uintptr_t(MPI_COMM_NULL), code)
	})
}

// raiseTo raises err, of class code, of a call of fn, raised where says
// ("on X"), on error handler eh, which is no communicator's: call calls a
// user's.
func raiseTo(fn string, eh Errhandler, where string, err error, code int, call func(f unsafe.Pointer, code C.int)) int {
	switch eh {
	case MPI_ERRORS_RETURN:
		return code
	case MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT:
		fatalOn(fn, where, nil, eh, err, code)
	}
	if u := lib.errhs.get(uintptr(eh)); u != nil {
		call(u.fn, C.int(code))
	}
	return code
}

// commHandle is the handle of communicator e, which a user error handler
// is called with: h when it is e's, else looked up (an error of a request
// knows its communicator's entry only).
func commHandle(e *commEntry, h Comm) Comm {
	switch e {
	case lib.world.Load():
		return MPI_COMM_WORLD
	case lib.self.Load():
		return MPI_COMM_SELF
	}
	if h != 0 && lib.comms.get(uintptr(h)) == e {
		return h
	}
	if c, ok := lib.commHandles.Load(e.c); ok {
		return c.(Comm)
	}
	return MPI_COMM_NULL
}

// fatal reports err, of a call of fn, and ends the job, as
// MPI_ERRORS_ARE_FATAL does.
func fatal(fn string, e *commEntry, eh Errhandler, err error, code int) {
	if e == nil {
		fatalOn(fn, "outside MPI_Init..MPI_Finalize", nil, eh, err, code)
		return
	}
	fatalOn(fn, "on "+e.c.String(), e.c, eh, err, code)
}

// fatalOn reports err, of a call of fn, raised where says ("on comm X"),
// and ends the job through c, or world when c is nil.
func fatalOn(fn, where string, c *pmpi.Comm, eh Errhandler, err error, code int) {
	if w := lib.world.Load(); c == nil && w != nil {
		c = w.c
	}
	name := "MPI_ERRORS_ARE_FATAL"
	if eh == MPI_ERRORS_ABORT {
		name = "MPI_ERRORS_ABORT"
	}
	flushStdio()
	if fn != "" {
		where = strings.TrimSuffix("in "+fn+" "+where, " ")
	}
	fmt.Fprintf(os.Stderr, "gompi: fatal error %s (its error handler is %s): %s: %v\n", where, name, className(code), err)
	if c != nil && api().Initialized() && !api().Finalized() {
		api().Abort(c, code)
	}
	os.Exit(code)
}

// unsupported is the result of function name of the standard, which gompi
// does not implement.
func unsupported(h Comm, name string) int { return done(name, h, errUnsupported) }

// errUnsupported is the error of a function gompi does not implement; the
// fatal handler's message names the function.
var errUnsupported error = &abiError{C.MPI_ERR_UNSUPPORTED_OPERATION, "not supported by gompi's libmpi_abi (docs/c-functions.md lists what is)"}

// errhEntry is a user error handler: a C function, and how many
// handles the user holds to it (MPI_Comm_create_errhandler gives one,
// MPI_Comm_get_errhandler another, MPI_Errhandler_free takes one back).
// Communicators keep calling it after the user freed every handle, as
// the standard says, so its entry stays in the table: error handlers are
// few.
type errhEntry struct {
	fn   unsafe.Pointer
	refs atomic.Int32
}

// user returns the live user error handler h, or nil.
func (h Errhandler) user() *errhEntry {
	if u := lib.errhs.get(uintptr(h)); u != nil && u.refs.Load() > 0 {
		return u
	}
	return nil
}

// check checks h names an error handler the user holds.
func (h Errhandler) check() error {
	switch h {
	case MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN:
		return nil
	}
	if h.user() == nil {
		return &abiError{C.MPI_ERR_ERRHANDLER, fmt.Sprintf("%#x is not an error handler (freed, or never one)", uintptr(h))}
	}
	return nil
}

func mpiCommCreateErrhandler(fn unsafe.Pointer, out *Errhandler) error {
	return createErrhandler("comm create errhandler", fn, out)
}

// createErrhandler makes a user error handler of the C function fn:
// gompi calls a communicator's and a session's alike.
func createErrhandler(op string, fn unsafe.Pointer, out *Errhandler) error {
	if fn == nil {
		return errorf(pmpi.ClassArg, "%s: the function is NULL", op)
	}
	u := &errhEntry{fn: fn}
	u.refs.Store(1)
	h, err := lib.errhs.put(u)
	*out = Errhandler(h)
	return err
}

func mpiCommSetErrhandler(h Comm, eh Errhandler) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	if err := eh.check(); err != nil {
		return err
	}
	e.errh.Store(uintptr(eh))
	return nil
}

func mpiCommGetErrhandler(h Comm, out *Errhandler) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	*out = handOut(Errhandler(e.errh.Load()))
	return nil
}

// handOut is eh as a get_errhandler call returns it: a new handle to a
// user handler, which the caller frees.
func handOut(eh Errhandler) Errhandler {
	if u := lib.errhs.get(uintptr(eh)); u != nil {
		u.refs.Add(1)
	}
	return eh
}

func mpiErrhandlerFree(h *Errhandler) error {
	switch *h {
	case MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN:
		// Predefined: freeing one only forgets the caller's handle.
	default:
		u := h.user()
		if u == nil || u.refs.Add(-1) < 0 {
			return &abiError{C.MPI_ERR_ERRHANDLER, fmt.Sprintf("errhandler free: %#x is not an error handler (freed, or never one)", uintptr(*h))}
		}
	}
	*h = MPI_ERRHANDLER_NULL
	return nil
}

func mpiCommCallErrhandler(h Comm, code int) error {
	e, err := h.get()
	if err != nil {
		return err
	}
	raise("MPI_Comm_call_errhandler", h, &onComm{e, &abiError{code, fmt.Sprintf("error code %d raised by MPI_Comm_call_errhandler", code)}})
	return nil
}

// className is the name of error class code, MPI_ERR_RANK...
func className(code int) string {
	if name, _, ok := strings.Cut(classNames[code], ":"); ok {
		return name
	}
	return fmt.Sprintf("MPI error class %d", code)
}

// putString writes msg, cut to fit max bytes with its NUL, to the C
// buffer s, and returns its length.
func putString(s *C.char, msg string, max int) int {
	if len(msg) > max-1 {
		msg = msg[:max-1]
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(s)), len(msg)+1)
	copy(b, msg)
	b[len(msg)] = 0
	return len(msg)
}

// classNames are the error classes' texts, for MPI_Error_string.
var classNames = map[int]string{
	C.MPI_SUCCESS: "MPI_SUCCESS: no error", C.MPI_ERR_BUFFER: "MPI_ERR_BUFFER: invalid buffer pointer",
	C.MPI_ERR_COUNT: "MPI_ERR_COUNT: invalid count argument", C.MPI_ERR_TYPE: "MPI_ERR_TYPE: invalid datatype",
	C.MPI_ERR_TAG: "MPI_ERR_TAG: invalid tag", C.MPI_ERR_COMM: "MPI_ERR_COMM: invalid communicator",
	C.MPI_ERR_RANK: "MPI_ERR_RANK: invalid rank", C.MPI_ERR_REQUEST: "MPI_ERR_REQUEST: invalid request",
	C.MPI_ERR_ROOT: "MPI_ERR_ROOT: invalid root", C.MPI_ERR_GROUP: "MPI_ERR_GROUP: invalid group",
	C.MPI_ERR_OP: "MPI_ERR_OP: invalid reduction operation", C.MPI_ERR_TOPOLOGY: "MPI_ERR_TOPOLOGY: invalid topology",
	C.MPI_ERR_DIMS: "MPI_ERR_DIMS: invalid dimension argument", C.MPI_ERR_ARG: "MPI_ERR_ARG: invalid argument",
	C.MPI_ERR_UNKNOWN: "MPI_ERR_UNKNOWN: unknown error", C.MPI_ERR_TRUNCATE: "MPI_ERR_TRUNCATE: message truncated",
	C.MPI_ERR_OTHER: "MPI_ERR_OTHER: known error not in this list", C.MPI_ERR_INTERN: "MPI_ERR_INTERN: internal error",
	C.MPI_ERR_PENDING: "MPI_ERR_PENDING: pending request", C.MPI_ERR_IN_STATUS: "MPI_ERR_IN_STATUS: error code is in status",
	C.MPI_ERR_INFO_KEY: "MPI_ERR_INFO_KEY: invalid info key", C.MPI_ERR_INFO_NOKEY: "MPI_ERR_INFO_NOKEY: no such info key",
	C.MPI_ERR_INFO_VALUE: "MPI_ERR_INFO_VALUE: invalid info value", C.MPI_ERR_KEYVAL: "MPI_ERR_KEYVAL: invalid attribute key",
	C.MPI_ERR_NO_MEM: "MPI_ERR_NO_MEM: out of memory", C.MPI_ERR_PROC_ABORTED: "MPI_ERR_PROC_ABORTED: a peer process has aborted",
	C.MPI_ERR_UNSUPPORTED_OPERATION: "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by gompi",
	C.MPI_ERR_ERRHANDLER:            "MPI_ERR_ERRHANDLER: invalid error handler",
	C.MPI_ERR_SESSION:               "MPI_ERR_SESSION: invalid session",
	C.MPI_ERR_INFO:                  "MPI_ERR_INFO: invalid info object",
	C.MPI_ERR_ABI:                   "MPI_ERR_ABI: error in the use of the ABI",
	C.MPI_ERR_LASTCODE:              "MPI_ERR_LASTCODE: last error code",
	C.MPI_ERR_NOT_SAME:              "MPI_ERR_NOT_SAME: collective argument not the same on every process, or collectives called in another order",
	C.MPI_ERR_VALUE_TOO_LARGE:       "MPI_ERR_VALUE_TOO_LARGE: value too large to store",
	C.MPI_ERR_SPAWN:                 "MPI_ERR_SPAWN: error in spawning processes",
	C.MPI_ERR_PORT:                  "MPI_ERR_PORT: invalid port name",
	C.MPI_ERR_NAME:                  "MPI_ERR_NAME: invalid service name to look up",
	C.MPI_ERR_SERVICE:               "MPI_ERR_SERVICE: invalid service name to unpublish",
	C.MPI_ERR_BASE:                  "MPI_ERR_BASE: invalid base for MPI_Free_mem",
	C.MPI_ERR_SIZE:                  "MPI_ERR_SIZE: invalid size",
	C.MPI_ERR_DISP:                  "MPI_ERR_DISP: invalid displacement",
	C.MPI_ERR_WIN:                   "MPI_ERR_WIN: invalid window",
	C.MPI_ERR_ASSERT:                "MPI_ERR_ASSERT: invalid assertion",
	C.MPI_ERR_LOCKTYPE:              "MPI_ERR_LOCKTYPE: invalid lock type",
	C.MPI_ERR_RMA_SYNC:              "MPI_ERR_RMA_SYNC: wrong synchronisation of RMA calls",
	C.MPI_ERR_RMA_CONFLICT:          "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
	C.MPI_ERR_RMA_RANGE:             "MPI_ERR_RMA_RANGE: target memory not in the window",
	C.MPI_ERR_RMA_ATTACH:            "MPI_ERR_RMA_ATTACH: memory cannot be attached",
	C.MPI_ERR_RMA_SHARED:            "MPI_ERR_RMA_SHARED: memory cannot be shared",
	C.MPI_ERR_RMA_FLAVOR:            "MPI_ERR_RMA_FLAVOR: window of the wrong flavour for the call",
	C.MPI_ERR_FILE:                  "MPI_ERR_FILE: invalid file handle",
	C.MPI_ERR_BAD_FILE:              "MPI_ERR_BAD_FILE: invalid file name",
	C.MPI_ERR_NO_SUCH_FILE:          "MPI_ERR_NO_SUCH_FILE: no such file",
	C.MPI_ERR_FILE_EXISTS:           "MPI_ERR_FILE_EXISTS: file exists",
	C.MPI_ERR_FILE_IN_USE:           "MPI_ERR_FILE_IN_USE: file open by some process",
	C.MPI_ERR_AMODE:                 "MPI_ERR_AMODE: invalid access mode",
	C.MPI_ERR_ACCESS:                "MPI_ERR_ACCESS: permission denied",
	C.MPI_ERR_READ_ONLY:             "MPI_ERR_READ_ONLY: read-only file or file system",
	C.MPI_ERR_NO_SPACE:              "MPI_ERR_NO_SPACE: not enough space",
	C.MPI_ERR_QUOTA:                 "MPI_ERR_QUOTA: quota exceeded",
	C.MPI_ERR_CONVERSION:            "MPI_ERR_CONVERSION: error in a data conversion function",
	C.MPI_ERR_DUP_DATAREP:           "MPI_ERR_DUP_DATAREP: data representation defined already",
	C.MPI_ERR_UNSUPPORTED_DATAREP:   "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
	C.MPI_ERR_IO:                    "MPI_ERR_IO: other I/O error",
}
