package lowlevel

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// callersLocked is set once, before the first call into gompi, by a
// library whose callers are C threads (SetCallersLocked).
var callersLocked atomic.Bool

// SetCallersLocked tells Gosched that gompi's callers are goroutines
// locked to their threads, as every call from C is. It is for the C
// library, which calls it once as it loads.
func SetCallersLocked() { callersLocked.Store(true) }

// runnable is the runtime's count of goroutines waiting for a processor.
const runnable = "/sched/goroutines/runnable:goroutines"

var samples = sync.Pool{New: func() any { return &[1]metrics.Sample{{Name: runnable}} }}

// Gosched lets the process's other goroutines run, for loops that wait on
// work the background goroutines may do. It is runtime.Gosched with one
// processor and free callers. With more processors, or callers locked to
// their threads, it yields only when another goroutine is runnable: there
// runtime.Gosched wakes a thread for an idle processor (or, for a locked
// caller, hands the processor to another thread and takes it back), a
// thread wake-up or two even when nothing else would run, and with more
// processors the idle ones' threads run the timers and network waits.
func Gosched() {
	if (callersLocked.Load() || runtime.GOMAXPROCS(0) > 1) && !othersRunnable() {
		return
	}
	runtime.Gosched()
}

// othersRunnable reports whether a goroutine waits for a processor.
func othersRunnable() bool {
	s := samples.Get().(*[1]metrics.Sample)
	metrics.Read(s[:])
	v := s[0].Value
	samples.Put(s)
	return v.Kind() != metrics.KindUint64 || v.Uint64() > 0 // unknown: yield, as before
}
