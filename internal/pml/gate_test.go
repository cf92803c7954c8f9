package pml

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// watched is Routes with nothing to deliver whose one module watches a
// word, quiet unless busy is set.
type watched struct {
	btltest.Discard
	word atomic.Uint64
	busy bool
}

func (w *watched) Watch(add func(*atomic.Uint64, uint64) bool) bool {
	return !w.busy && add(&w.word, w.word.Load())
}

// gated starts an engine on a watched module, with a gate word.
func gated() (*Engine, *watched, *atomic.Uint32) {
	routes := &watched{}
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(routes)
	var gate atomic.Uint32
	e.SetGate(&gate)
	return e, routes, &gate
}

// Arm sets the gate, naming the module's word, only while a poll can find
// nothing to do: never with work queued, deferred, aside or stalled, a
// module busy, or the caller's own condition false.
func TestArmOnlyWhileNothingWaitsForAPoll(t *testing.T) {
	pending := func() bool { return true }
	cases := []struct {
		name  string
		make  func(e *Engine, routes *watched) func() bool
		armed bool
	}{
		{"quiet", func(*Engine, *watched) func() bool { return pending }, true},
		{"the caller's request completed", func(*Engine, *watched) func() bool { return func() bool { return false } }, false},
		{"the module busy", func(_ *Engine, routes *watched) func() bool { routes.busy = true; return pending }, false},
		{"work deferred", func(e *Engine, _ *watched) func() bool { e.Defer(new(Deferred)); return pending }, false},
		{"work aside", func(e *Engine, _ *watched) func() bool { e.AsideStarted(); return pending }, false},
		{"work for the pollers", func(e *Engine, _ *watched) func() bool {
			e.pollers.Add(1)
			forPollers(e, &e.outbox, func() {})
			e.pollers.Add(-1)
			return pending
		}, false},
		{"a send stalled", func(e *Engine, _ *watched) func() bool {
			e.stallSend(stalled{r: &Request{peer: 1}})
			return pending
		}, false},
	}
	for _, c := range cases {
		e, routes, gate := gated()
		still := c.make(e, routes)
		var words []*atomic.Uint64
		armed := e.Arm(func(w *atomic.Uint64, v uint64) bool {
			words = append(words, w)
			return true
		}, still)
		if armed != c.armed || (gate.Load() != 0) != c.armed {
			t.Errorf("%s: Arm reported %v, gate word %d; want armed %v", c.name, armed, gate.Load(), c.armed)
		}
		if c.armed && (len(words) != 1 || words[0] != &routes.word) {
			t.Errorf("%s: Arm named words %v, want the module's", c.name, words)
		}
	}
}

// Every change the engine makes clears an armed gate: a completion, work
// deferred, work aside, a stalled send, a peer's failure.
func TestChangesClearTheGate(t *testing.T) {
	changes := map[string]func(e *Engine){
		"a completion": func(e *Engine) {
			var g Request
			e.CompleteGeneral(e.StartGeneral(&g), Status{})
		},
		"work deferred":   func(e *Engine) { e.Defer(new(Deferred)) },
		"work aside":      func(e *Engine) { e.AsideStarted() },
		"a stalled send":  func(e *Engine) { e.stallSend(stalled{r: &Request{peer: 1}}) },
		"a peer's fault":  func(e *Engine) { e.PeerFailed(1, errors.New("gone")) },
		"a later message": func(e *Engine) { e.pollers.Add(1); e.later(func() {}); e.pollers.Add(-1) },
	}
	for name, change := range changes {
		e, _, gate := gated()
		if !e.Arm(func(*atomic.Uint64, uint64) bool { return true }, func() bool { return true }) {
			t.Fatalf("%s: Arm refused a quiet engine", name)
		}
		change(e)
		if gate.Load() != 0 {
			t.Errorf("%s left the gate armed", name)
		}
	}
}

// Without a gate word, or before the engine starts, Arm arms nothing.
func TestArmWithoutAGate(t *testing.T) {
	e := New(0, hclog.NewNullLogger(), DefaultConfig())
	var gate atomic.Uint32
	e.SetGate(&gate)
	if e.Arm(func(*atomic.Uint64, uint64) bool { return true }, func() bool { return true }) || gate.Load() != 0 {
		t.Error("Arm armed an engine not started")
	}
	e = New(0, hclog.NewNullLogger(), DefaultConfig())
	e.Start(&watched{})
	if e.Arm(func(*atomic.Uint64, uint64) bool { return true }, func() bool { return true }) {
		t.Error("Arm armed an engine without a gate word")
	}
}
