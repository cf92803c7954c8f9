package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
#include <stdio.h>
void gompi_note_main_thread(void);
int gompi_is_main_thread(void);
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/gompi/gompi/internal/cpuset"
	"github.com/gompi/gompi/internal/version"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"

	_ "github.com/gompi/gompi/components/all" // every component, as a gompi program links
)

// api is the API the library calls: gompi's profiling stack, so that
// --mca prof tools see a C program's calls.
func api() pmpi.API {
	sched.check()
	disarm()
	return mpi.Calls()
}

// MPI_Init is MPI_Init_thread asking for MPI_THREAD_SINGLE.
func mpiInit(argc *C.int, argv unsafe.Pointer) error {
	return initWorld(C.MPI_THREAD_SINGLE, mpi.Init)
}

// mpiInitThread provides the level asked for, as the standard asks where
// it can: gompi is safe at every level, MPI_THREAD_MULTIPLE included.
func mpiInitThread(argc *C.int, argv unsafe.Pointer, required int, provided *C.int) error {
	level := threadLevel(required)
	if err := initWorld(level, func() error {
		_, err := mpi.InitThread(pmpi.ThreadMultiple)
		return err
	}); err != nil {
		return err
	}
	*provided = C.int(level)
	return nil
}

// threadLevels are the thread levels, lowest first.
var threadLevels = [...]int{C.MPI_THREAD_SINGLE, C.MPI_THREAD_FUNNELED, C.MPI_THREAD_SERIALIZED, C.MPI_THREAD_MULTIPLE}

// threadLevel is the level provided for required: the lowest level at or
// above it, the highest above them all.
func threadLevel(required int) int {
	for _, l := range threadLevels {
		if required <= l {
			return l
		}
	}
	return threadLevels[len(threadLevels)-1]
}

// started makes MPI_COMM_WORLD and MPI_COMM_SELF usable from C, with the
// C default error handler, MPI_ERRORS_ARE_FATAL. It asks pmpi for them
// directly: the program made no such call for the tools to see.
func started() error {
	for _, p := range []struct {
		slot interface{ Store(*commEntry) }
		c    *pmpi.Comm
	}{{&lib.world, pmpi.Real().CommWorld()}, {&lib.self, pmpi.Real().CommSelf()}} {
		e := &commEntry{c: p.c}
		e.errh.Store(uintptr(MPI_ERRORS_ARE_FATAL))
		p.slot.Store(e)
	}
	C.gompi_note_main_thread()
	pmpi.SetGate(gateArmed)
	if pmpi.YieldsWhenWaiting() {
		// Ranks share CPUs: the ticker's wake-ups and the hand-offs would
		// cost more than they save (sched.go).
		return nil
	}
	if err := startSched(); err != nil {
		// Calls still work, but slower after computations in C.
		fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
	}
	return nil
}

func mpiFinalize() error { return finalizeWorld() }

// MPI_Initialized and MPI_Finalized speak of the World Model: sessions
// alone leave them false.
func mpiInitialized(flag *C.int) error {
	*flag = cbool(api().Initialized() && lib.model.world.Load() != worldNone)
	return nil
}

func mpiFinalized(flag *C.int) error {
	*flag = cbool(api().Finalized() || lib.model.world.Load() == worldFinalized)
	return nil
}

func mpiAbort(h Comm, code int) error {
	c, err := h.comm()
	if err != nil && !api().Initialized() {
		// Erroneous before MPI_Init, yet the program asks to stop (a
		// command line it refuses, before it starts MPI): it stops.
		flushStdio()
		fmt.Fprintf(os.Stderr, "gompi: MPI_Abort called before MPI_Init, with code %d; this process exits\n", code)
		return api().Abort(nil, code)
	}
	if err != nil {
		return err
	}
	flushStdio()
	return api().Abort(c, code)
}

// flushStdio writes out what the program's C streams hold, as exit(3)
// would: a rank ends through Go's exit, or is stopped by gompirun once
// another fails, and the program's last words, the reason it aborts
// among them, would be lost in a pipe's buffer.
func flushStdio() { C.fflush(nil) }

// mpiQueryThread is the level MPI_Init or MPI_Init_thread provided; before
// either, the highest one MPI_Init_thread provides.
func mpiQueryThread(provided *C.int) error {
	*provided = C.MPI_THREAD_MULTIPLE
	if lib.model.world.Load() != worldNone {
		*provided = C.int(lib.model.thread.Load())
	}
	return nil
}

func mpiIsThreadMain(flag *C.int) error {
	*flag = C.gompi_is_main_thread()
	return nil
}

func mpiGetProcessorName(name *C.char, n *C.int) error {
	host, err := os.Hostname()
	if err != nil {
		return errorf(pmpi.ClassOther, "get processor name: %v", err)
	}
	*n = C.int(putString(name, host, C.MPI_MAX_PROCESSOR_NAME))
	return nil
}

// mpiGetHwResourceInfo gives the host and the CPUs this process may run
// on, as gompi_host and gompi_cpus ("0-3,6"): MPI 4.1 leaves the keys to
// the implementation.
func mpiGetHwResourceInfo(out *Info) error {
	host, err := os.Hostname()
	if err != nil {
		return errorf(pmpi.ClassOther, "get hw resource info: %v", err)
	}
	cpus, err := cpuset.Allowed()
	if err != nil {
		return errorf(pmpi.ClassOther, "get hw resource info: %v", err)
	}
	info := pmpi.Real().InfoCreate()
	if err := errors.Join(pmpi.Real().InfoSet(info, "gompi_host", host), pmpi.Real().InfoSet(info, "gompi_cpus", cpuset.Format(cpus))); err != nil {
		return err
	}
	return putInfo(info, out)
}

func mpiGetVersion(v, sub *C.int) error {
	*v, *sub = C.MPI_VERSION, C.MPI_SUBVERSION
	return nil
}

func mpiGetLibraryVersion(s *C.char, n *C.int) error {
	msg := fmt.Sprintf("gompi %s, libmpi_abi (MPI %d.%d standard ABI %d.%d)", version.Version,
		C.MPI_VERSION, C.MPI_SUBVERSION, C.MPI_ABI_VERSION, C.MPI_ABI_SUBVERSION)
	*n = C.int(putString(s, msg, C.MPI_MAX_LIBRARY_VERSION_STRING))
	return nil
}

func mpiAbiGetVersion(major, minor *C.int) error {
	*major, *minor = C.MPI_ABI_VERSION, C.MPI_ABI_SUBVERSION
	return nil
}

// mpiAbiGetInfo describes the ABI's integer types, which the standard
// lets an implementation size.
func mpiAbiGetInfo(out *Info) error {
	info := pmpi.Real().InfoCreate()
	for k, v := range map[string]string{
		"mpi_aint_size":   fmt.Sprint(unsafe.Sizeof(C.MPI_Aint(0))),
		"mpi_count_size":  fmt.Sprint(unsafe.Sizeof(C.MPI_Count(0))),
		"mpi_offset_size": fmt.Sprint(unsafe.Sizeof(C.MPI_Offset(0))),
	} {
		if err := pmpi.Real().InfoSet(info, k, v); err != nil {
			return err
		}
	}
	h, err := lib.infos.put(info)
	*out = Info(h)
	return err
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// gompiPcontrol is MPI_Pcontrol's level, from the variadic C function in
// pcontrol.c.
//
//export gompiPcontrol
func gompiPcontrol(level C.int) C.int {
	return C.int(done("MPI_Pcontrol", 0, mpi.Pcontrol(int(level))))
}
