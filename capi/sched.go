package main

// #include <stdint.h>
// extern uint32_t gompi_sched_epoch;
// int gompi_sched_start(uint32_t ns);
// void gompi_sched_stop(void);
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A C thread's calls run on a goroutine locked to it, which Go's scheduler
// never switches: its processor (P) keeps one scheduling tick. Go's
// monitor takes the P of a goroutine on the same tick for 10 ms that it
// finds in a system call, which C's code between MPI calls counts as, and
// then polls every 20 us: each poll that finds the thread back in C takes
// the P again, a thread wake-up each time, until the tick moves. A C
// program that computed for 50 us between 8-byte round trips over sm paid
// 5-9 us a round trip for it, a Go one 1.3-2.2 (bench/c/compute_gap.c).
// So once a schedPeriod in which the thread was seen computing, its next
// call yields, which moves its tick (a hand-off of the P to another thread
// and back, as runtime.Gosched does on a locked goroutine): 1.7-2.8 us.
// Computations from about 100 us long are still caught twice in one
// system call by the monitor's polls and lose the P. A ticker thread in
// C (sched.c) says when, so that a call pays one load for it, not a clock
// read, and a thread that waits in MPI, which the monitor preempts there
// itself, is not made to yield as well. Where the host's ranks share its
// CPUs there is no ticker: each wake-up and hand-off waits for a CPU, and
// an 8-rank bcast on 2 CPUs took 1.1-2 times as long with it.
const schedPeriod = 4 * time.Millisecond // below the monitor's 10 ms

// rescheduler yields once per epoch of the ticker.
type rescheduler struct {
	epoch *uint32 // the ticker's
	last  atomic.Uint32
	yield func()
}

// check yields if the epoch moved since it last did. With several C
// threads calling MPI, the first to call in a new epoch yields.
func (r *rescheduler) check() {
	if e := atomic.LoadUint32(r.epoch); e != r.last.Load() {
		r.last.Store(e)
		r.yield()
	}
}

var sched = rescheduler{epoch: (*uint32)(unsafe.Pointer(&C.gompi_sched_epoch)), yield: runtime.Gosched}

// startSched starts the ticker as the runtime starts.
func startSched() error {
	if rc := C.gompi_sched_start(C.uint32_t(schedPeriod.Nanoseconds())); rc != 0 {
		return fmt.Errorf("start the scheduling ticker thread: %w", syscall.Errno(rc))
	}
	return nil
}

// stopSched stops it as the runtime ends.
func stopSched() { C.gompi_sched_stop() }
