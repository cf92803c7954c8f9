package pml

import "testing"

// counted is deferred work that counts its runs and may complete a
// general request.
type counted struct {
	runs int
	e    *Engine
	r    *Request
}

func (c *counted) RunDeferred() {
	c.runs++
	if c.r != nil {
		c.e.CompleteGeneral(c.r, Status{Tag: c.runs})
	}
}

// Deferred work runs once, at the next poll or RunDeferred, whether the
// engine holds it apart (the first) or in its list (those deferred
// while the first waits).
func TestDeferRunsOnce(t *testing.T) {
	e := newNet(t, 1, 64, 100).engines[0]
	var a, b, c counted
	da, db, dc := Deferred(&a), Deferred(&b), Deferred(&c)
	e.Defer(&da)
	e.Defer(&db)
	e.Progress()
	if a.runs != 1 || b.runs != 1 {
		t.Fatalf("after a poll: runs %d and %d, want 1 and 1", a.runs, b.runs)
	}
	e.Progress()
	e.RunDeferred()
	if a.runs != 1 || b.runs != 1 {
		t.Fatalf("after another poll and RunDeferred: runs %d and %d, want 1 and 1", a.runs, b.runs)
	}
	e.Defer(&da)
	e.Defer(&db)
	e.Defer(&dc)
	e.RunDeferred()
	if a.runs != 2 || b.runs != 2 || c.runs != 1 {
		t.Fatalf("after RunDeferred: runs %d, %d and %d, want 2, 2 and 1", a.runs, b.runs, c.runs)
	}
	e.Progress()
	if a.runs != 2 || b.runs != 2 || c.runs != 1 {
		t.Fatalf("after a poll: runs %d, %d and %d, want 2, 2 and 1", a.runs, b.runs, c.runs)
	}
}

// A Wait on a request that only deferred work completes returns, the
// work held apart or listed: the waiter runs it (at its polls, or at the
// latest when it stops polling to sleep).
func TestDeferRunsInWait(t *testing.T) {
	e := newNet(t, 1, 64, 100).engines[0]
	var g1, g2 Request
	first := &counted{e: e, r: e.StartGeneral(&g1)}
	second := &counted{e: e, r: e.StartGeneral(&g2)}
	d1, d2 := Deferred(first), Deferred(second)
	e.Defer(&d1)
	e.Defer(&d2)
	if st := e.Wait(second.r); st.Tag != 1 {
		t.Fatalf("the listed work's request: status %+v, want tag 1", st)
	}
	if st := e.Wait(first.r); st.Tag != 1 {
		t.Fatalf("the work held apart's request: status %+v, want tag 1", st)
	}
}
