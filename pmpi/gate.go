package pmpi

import "sync/atomic"

// SetGate gives the library's engine a gate word: a word outside Go that
// Arm sets and that any change the engine makes (a delivery, a
// completion, work for its pollers or a goroutine) clears. The C library
// answers a repeated failed MPI_Test from C while the word is set and
// the words Arm named keep their values. It takes effect after Init.
func SetGate(w *atomic.Uint32) {
	if l := current.Load(); l != nil {
		l.engine.SetGate(w)
	}
}

// Arm sets the gate word if, until it is cleared or a word given to add
// changes, the pending point-to-point requests among reqs stay pending
// and, if probing, a probe that found nothing after ProbeMark gave mark
// still finds nothing: nothing waits for this rank's polls but what the
// words show, and no goroutine of the library works. It sets to nil the
// entries of reqs that are not pending (complete, or another kind of
// request); one at least must be left, or probing set. The caller clears
// the word itself when it calls the library again.
func Arm(reqs []*Request, probing bool, mark uint64, add func(w *atomic.Uint64, v uint64) bool) bool {
	var l *library
	if probing {
		l = current.Load()
	}
	for i, r := range reqs {
		if r == nil {
			continue
		}
		if !r.pointToPoint() || r.pending() == nil || l != nil && r.lib != l {
			reqs[i] = nil
			continue
		}
		l = r.lib
	}
	if l == nil {
		return false
	}
	return l.engine.Arm(add, func() bool {
		for _, r := range reqs {
			if r != nil && (atomic.LoadUint32(&r.gen)%2 == 0 || r.pending() == nil) {
				return false
			}
		}
		return !probing || l.engine.Held() == mark
	})
}

// ProbeMark is the mark for Arm of a probe about to look for a message.
func ProbeMark() uint64 {
	if l := current.Load(); l != nil {
		return l.engine.Held()
	}
	return 0
}

// pointToPoint reports whether r is an active send or receive of the
// engine's, plain or persistent: one that only the engine completes.
func (r *Request) pointToPoint() bool {
	if atomic.LoadUint32(&r.gen)%2 == 0 || r.pml == nil {
		return false
	}
	return r.kind == reqPlain || r.kind == reqPersistent && r.ext.coll == nil && r.ext.part == nil
}
