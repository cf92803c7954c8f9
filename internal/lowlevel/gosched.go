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
// work the background goroutines may do. It is runtime.Gosched, except
// for callers locked to their threads, which yield only when another
// goroutine is runnable: on a locked goroutine runtime.Gosched hands the
// processor to another thread and takes it back, two thread wake-ups, tens
// of microseconds, even when nothing else would run.
func Gosched() {
	if callersLocked.Load() && !othersRunnable() {
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
