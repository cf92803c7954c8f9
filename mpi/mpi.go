// Package mpi is gompi's MPI API for Go programs. Start the program with
// gompirun (or alone, as a single rank), call Init, talk to other ranks
// through communicators, and call Finalize:
//
//	if err := mpi.Init(); err != nil { log.Fatal(err) }
//	defer mpi.Finalize()
//	world := mpi.CommWorld()
//	if world.Rank() == 0 {
//		err = mpi.Send([]float64{1, 2, 3}, 1, 0, world)
//	}
//
// Buffers are typed slices of Go's numeric types, or of structs and
// arrays of them (see Layout for the parts of a slice); counts are the
// slices' lengths. Every call goes through one indirection to package pmpi, the
// layer profiling tools wrap. Errors carry MPI error classes: use
// errors.Is(err, mpi.ErrTruncate). The library is goroutine-safe.
package mpi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// calls holds the API every call goes through: pmpi's real one, or a stack
// of profiling tools above it, built once by Init. Until it is built,
// early holds the last level given to Pcontrol, which install delivers to
// the stack it builds; installMu guards both.
var (
	calls     atomic.Pointer[pmpi.API]
	installMu sync.Mutex
	early     struct {
		level int
		set   bool
	}
)

// Calls returns the API the calls of this package go through: the
// profiling stack once Init (or InitThread) has built it, pmpi's own
// before. A binding for another language (gompi's C library) calls it,
// so that the profiling tools see that language's calls too.
func Calls() pmpi.API { return api() }

func api() pmpi.API {
	if p := calls.Load(); p != nil {
		return *p
	}
	return pmpi.Real()
}

// Re-exported types and values from pmpi.
type (
	// Status describes a received or probed message.
	Status = pmpi.Status
	// Error is an MPI error; compare its class with errors.Is and the Err* values.
	Error = pmpi.Error
	// ErrorHandler says what happens when a call on a communicator fails.
	ErrorHandler = pmpi.ErrorHandler
	// ThreadLevel is an MPI thread support level.
	ThreadLevel = pmpi.ThreadLevel
	// Numeric is Go's numeric types.
	Numeric = pmpi.Numeric
	// Elem is the element types a buffer may have: any comparable
	// type, checked when used. Numbers, Pairs, and structs and arrays of
	// fixed-size numbers can be sent; a call with any other type fails
	// with ErrType naming the field at fault.
	Elem = pmpi.Elem
	// Comparison is the result of comparing communicators or groups.
	Comparison = pmpi.Comparison
)

// Pair is a value and its index: the element of MinLoc and MaxLoc.
type Pair[T int16 | int32 | int64 | float32 | float64] = pmpi.Pair[T]

// Special ranks, tags, indices and levels.
const (
	AnySource = pmpi.AnySource
	AnyTag    = pmpi.AnyTag
	ProcNull  = pmpi.ProcNull
	TagUB     = pmpi.TagUB
	Undefined = pmpi.Undefined

	ErrorsReturn   = pmpi.ErrorsReturn
	ErrorsAreFatal = pmpi.ErrorsAreFatal

	ThreadSingle     = pmpi.ThreadSingle
	ThreadFunneled   = pmpi.ThreadFunneled
	ThreadSerialized = pmpi.ThreadSerialized
	ThreadMultiple   = pmpi.ThreadMultiple

	Ident     = pmpi.Ident
	Congruent = pmpi.Congruent
	Similar   = pmpi.Similar
	Unequal   = pmpi.Unequal

	CommTypeShared = pmpi.CommTypeShared
)

// Error classes for errors.Is.
var (
	ErrBuffer     = pmpi.ErrBuffer
	ErrCount      = pmpi.ErrCount
	ErrType       = pmpi.ErrType
	ErrTag        = pmpi.ErrTag
	ErrComm       = pmpi.ErrComm
	ErrRank       = pmpi.ErrRank
	ErrRequest    = pmpi.ErrRequest
	ErrArg        = pmpi.ErrArg
	ErrTruncate   = pmpi.ErrTruncate
	ErrOther      = pmpi.ErrOther
	ErrIntern     = pmpi.ErrIntern
	ErrProcFailed = pmpi.ErrProcFailed
	ErrInStatus   = pmpi.ErrInStatus
	ErrOp         = pmpi.ErrOp
	ErrRoot       = pmpi.ErrRoot
	ErrGroup      = pmpi.ErrGroup
	ErrTopology   = pmpi.ErrTopology
	ErrDims       = pmpi.ErrDims
	ErrKeyval     = pmpi.ErrKeyval
	ErrInfoKey    = pmpi.ErrInfoKey
	ErrInfoValue  = pmpi.ErrInfoValue
	ErrInfoNokey  = pmpi.ErrInfoNokey
)

// Init initialises MPI. It may be called once per process. Parameters and
// components load first; then the profiling tools that the prof parameter
// names are stacked, and Init itself passes through them.
func Init() error {
	if err := install(); err != nil {
		return err
	}
	return api().Init()
}

// InitThread initialises MPI and returns the thread level provided: the
// one required, as gompi is goroutine-safe at every level.
func InitThread(required ThreadLevel) (ThreadLevel, error) {
	if err := install(); err != nil {
		return ThreadMultiple, err
	}
	return api().InitThread(required)
}

// install builds the profiling stack, once. After a failed or second
// Init it leaves things as they are: the call itself reports why.
func install() error {
	installMu.Lock()
	defer installMu.Unlock()
	if calls.Load() != nil || pmpi.Real().Initialized() {
		return nil
	}
	sys, err := pmpi.Prepare()
	if err != nil {
		return err
	}
	fw, err := sys.Framework(prof.Name)
	if err != nil {
		return err
	}
	st, err := prof.Build(context.Background(), fw, pmpi.Real())
	if err != nil {
		return &pmpi.Error{Class: pmpi.ClassOther, Msg: "Init: profiling tools", Err: err}
	}
	calls.Store(&st.API)
	// The tools see a Pcontrol made before Init now, before Init itself:
	// the user's call, late, and once.
	if early.set {
		early.set = false
		if err := st.API.Pcontrol(early.level); err != nil {
			return &pmpi.Error{Class: pmpi.ClassOther, Msg: fmt.Sprintf("Init: Pcontrol(%d), called before Init", early.level), Err: err}
		}
	}
	return nil
}

// Finalize waits for every rank to finalize and leaves the job.
func Finalize() error { return api().Finalize() }

// Initialized reports whether Init has completed.
func Initialized() bool { return api().Initialized() }

// Finalized reports whether Finalize has completed.
func Finalized() bool { return api().Finalized() }

// Abort stops every rank of the job with the given exit code; it does not
// return.
func Abort(comm Comm, code int) error { return api().Abort(comm.c, code) }

// AppNum is the index of this process's app context on gompirun's MPMD
// command line (MPI_APPNUM): under gompirun -np 1 ./a : -np 3 ./b it is 0
// in ./a's rank and 1 in each of ./b's. It is 0 in a job of one app context
// and in a singleton, and Undefined before Init. It reads what the launcher
// told the process, so no profiling tool sees it.
func AppNum() int { return pmpi.AppNum() }

// Wtime returns wall-clock seconds since a fixed point in the past.
func Wtime() float64 { return api().Wtime() }

// Wtick returns the resolution of Wtime in seconds.
func Wtick() float64 { return api().Wtick() }

// Pcontrol tells profiling tools to stop (0), resume (1) or flush (2); it
// does nothing without tools. It may be called before Init and after
// Finalize: the last level given before Init reaches the tools as Init
// stacks them, before Init itself passes through them, so that
// Pcontrol(0) first keeps a whole run out of the collection.
func Pcontrol(level int) error {
	if calls.Load() == nil {
		// Hold installMu through the call: install cannot build the stack
		// between noting the level and calling pmpi below, so the level
		// reaches the tools once, from install or from here.
		installMu.Lock()
		defer installMu.Unlock()
		if calls.Load() == nil {
			early.level, early.set = level, true
		}
	}
	return api().Pcontrol(level)
}
