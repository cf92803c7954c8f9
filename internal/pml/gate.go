package pml

import "sync/atomic"

// SetGate gives the engine the gate word of the library above: a word in
// memory outside Go that Arm sets while nothing can change without the
// engine clearing it, so that the library's C entry points can answer a
// repeated failed test without entering Go.
func (e *Engine) SetGate(w *atomic.Uint32) { e.gate.Store(w) }

// changed clears the gate word: something happened that a poll or a test
// may see. Every change is made before the word is looked at, and Arm
// sets the word before it looks at the state: either Arm sees the change
// or the change clears the word.
func (e *Engine) changed() {
	if g := e.gate.Load(); g != nil && g.Load() != 0 {
		g.Store(0)
	}
}

// Arm sets the gate word if a poll could find nothing to do until one of
// the words it gives add changes (btl.Watcher) or the engine clears the
// word: no deliveries' work queued for the pollers, no work deferred,
// none aside in a goroutine, no send stalled, and still, the caller's own
// condition (its requests pending), holds once the word is set. It
// reports whether the word is set.
func (e *Engine) Arm(add func(w *atomic.Uint64, v uint64) bool, still func() bool) bool {
	g := e.gate.Load()
	if g == nil || !e.started.Load() {
		return false
	}
	g.Store(1)
	w, ok := e.routes.(watcher)
	if ok && !e.queued.Load() && e.lone.Load() == nil && e.inFlight.Load() == 0 &&
		e.stalled.Load() == 0 && w.Watch(add) && still() {
		return true
	}
	g.Store(0)
	return false
}

// Held counts the messages that went to an unexpected queue and the peers
// that failed: a probe that found nothing after Held read n can find
// something only once Held moves from n.
func (e *Engine) Held() uint64 { return e.held.Load() }
