package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
#include "gate.h"
*/
import "C"

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// gateArmed is the gate's armed word (gate.h): pmpi.Arm sets it, the
// engine clears it on every change, and so does every call into the
// library (api).
var gateArmed = (*atomic.Uint32)(unsafe.Pointer(&C.gompi_gate.armed))

// disarm clears the gate: the call that enters may post, start, send or
// free what the gate's requests depend on.
func disarm() {
	if gateArmed.Load() != 0 {
		gateArmed.Store(0)
	}
}

// probe is a probe that found nothing, for the gate.
type probe struct {
	source, tag int
	comm        Comm
	mark        uint64 // pmpi.ProbeMark before it looked
}

// arm arms the gate after a test of hs (reqs, their requests; nil for
// MPI_REQUEST_NULL) or the probe p found not what it looked for, with
// those requests still pending and the probe, and those it was armed with
// before that still hold: a loop that tests two requests in turn, or
// probes between tests, is answered in C for all. It arms it only where
// the program's MPI calls come from one thread (MPI_THREAD_FUNNELED at
// most, no session), as no other thread then calls in while C answers,
// and only with no Go profiling tool, which must see every call. Where
// ranks outnumber the CPUs, a loop of tests answered in C held the CPU
// from the rank it waited for longer than one that entered Go (3 ranks on
// 2 CPUs passing tokens took 4.4 s instead of 1.3-1.6), so there it arms
// none.
func arm(hs []Request, reqs []*pmpi.Request, p *probe) {
	m := &lib.model
	if m.thread.Load() > C.MPI_THREAD_FUNNELED || m.world.Load() != worldRunning || m.sessions.Load() != 0 ||
		pmpi.YieldsWhenWaiting() || mpi.Calls() != pmpi.Real() {
		return
	}
	g := &C.gompi_gate
	var set [C.GOMPI_GATE_REQS]C.uintptr_t
	var rs [C.GOMPI_GATE_REQS]*pmpi.Request
	n := 0
	for i, h := range hs {
		if h == MPI_REQUEST_NULL || reqs[i] == nil {
			continue
		}
		if n == len(set) {
			return
		}
		set[n], rs[n] = C.uintptr_t(h), reqs[i]
		n++
	}
	for _, h := range g.req[:g.nreqs] {
		if n == len(set) {
			break
		}
		if e := lib.reqs.get(uintptr(h)); e != nil && !slices.Contains(set[:n], h) {
			set[n], rs[n] = h, e.r
			n++
		}
	}
	if p == nil && g.probing != 0 {
		p = &probe{int(g.probe_source), int(g.probe_tag), Comm(g.probe_comm), uint64(g.probe_mark)}
		if _, err := p.comm.comm(); err != nil {
			p = nil
		}
	}
	var mark uint64
	if p != nil {
		mark = p.mark
	}
	g.nwords, g.nreqs, g.probing = 0, 0, 0
	if !pmpi.Arm(rs[:n], p != nil, mark, watch) {
		return
	}
	k := 0
	for i, r := range rs[:n] {
		if r != nil {
			g.req[k] = set[i]
			k++
		}
	}
	g.nreqs = C.int(k)
	if p != nil {
		g.probing, g.probe_source, g.probe_tag = 1, C.int(p.source), C.int(p.tag)
		g.probe_comm, g.probe_mark = C.uintptr_t(p.comm), C.uint64_t(p.mark)
	}
}

// watch adds a word to the gate's, for pmpi.Arm.
func watch(w *atomic.Uint64, v uint64) bool {
	g := &C.gompi_gate
	if g.nwords == C.GOMPI_GATE_WORDS {
		return false
	}
	g.word[g.nwords], g.value[g.nwords] = (*C.uint64_t)(unsafe.Pointer(w)), C.uint64_t(v)
	g.nwords++
	return true
}

// knowWorld lets C answer MPI_Comm_rank and MPI_Comm_size of
// MPI_COMM_WORLD and MPI_COMM_SELF (gate.h) once MPI_Init made the world,
// unless a Go profiling tool counts every call.
func knowWorld() {
	if mpi.Calls() != pmpi.Real() {
		return
	}
	w := mpi.CommWorld()
	C.gompi_world.rank, C.gompi_world.size = C.int(w.Rank()), C.int(w.Size())
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&C.gompi_world.known)), 1)
}

// forgetWorld sends those calls to Go again, as MPI_Finalize begins.
func forgetWorld() { atomic.StoreUint32((*uint32)(unsafe.Pointer(&C.gompi_world.known)), 0) }
