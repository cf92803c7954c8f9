// Command capi is libmpi_abi.so.1, gompi as a C MPI library with the
// MPI-5.0 standard ABI. Build it with
//
//	go build -buildmode=c-shared -ldflags=-X=runtime.godebugDefault=asyncpreemptoff=1 -o lib/libmpi_abi.so.1 ./capi
//
// (make build does, with the soname): without asynchronous preemption Go
// sends no SIGURG, which a C program may handle as its own. C programs compiled against
// include/mpi.h with gompicc run on gompi under gompirun. Every PMPI_
// function is an exported Go function (exports_gen.go, generated from
// mpi.abi) that turns C's handles and counts into Go values and calls
// this package's implementation, which calls package mpi's API: the
// profiling stack gompi's prof tools build, so they see C calls too. Each
// MPI_ function is a weak C symbol calling its PMPI_ twin (weak_gen.c),
// which a C profiling tool may replace.
//
// C has no place to keep gompi's objects, so this package keeps them in
// tables and gives C integers (handles.go): the one global state of the
// library, as a C MPI library has.
package main

// #cgo CFLAGS: -O2
import "C"

import (
	"github.com/gompi/gompi/internal/lowlevel"
	"github.com/gompi/gompi/pmpi"
)

// main is not called: the package is built as a shared library.
func main() {}

// Every call comes from C, on a goroutine locked to the C thread: gompi's
// waits must not hand that thread's processor off when nothing else would
// run, and state reports name the C caller.
func init() {
	lowlevel.SetCallersLocked()
	pmpi.SetForeignCaller(pmpi.ForeignCaller{PC: callerPC, Site: callerSite})
}
