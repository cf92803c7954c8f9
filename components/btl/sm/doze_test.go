package sm

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// dozing starts m.Doze with no time-out to speak of in a goroutine and
// returns once the doze has announced itself (or ended); the channel
// closes when Doze returns. A doze holds its processor: the test needs
// another.
func dozing(t *testing.T, m *Module, ready func() bool) <-chan struct{} {
	t.Helper()
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	before := m.me.sleeping.Load()
	returned := make(chan struct{})
	go func() {
		m.Doze(time.Hour, ready)
		close(returned)
	}()
	for m.me.sleeping.Load() == before {
		select {
		case <-returned:
			return returned
		default:
			runtime.Gosched()
		}
	}
	return returned
}

// awaitReturn fails the test if Doze has not returned within a minute: a
// hang guard, not a measurement. Finalize, at cleanup, ends a doze that
// nothing else woke.
func awaitReturn(t *testing.T, returned <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-returned:
	case <-time.After(time.Minute):
		t.Fatalf("Doze did not return after %s", what)
	}
}

func never() bool { return false }

// The contract suite (TestContract/Doze) checks that a doze ends on a
// peer's send, on Wake and when ready; these check what is sm's own.

// A doze only looks: a fragment already waiting ends it undelivered, and
// the waiter's next poll delivers it.
func TestDozeLooksWithoutDraining(t *testing.T) {
	j := newTestJob(t, 2)
	if err := j.mods[0].Send(context.Background(), 1, []byte("h"), []byte{1}); err != nil {
		t.Fatal(err)
	}
	awaitReturn(t, dozing(t, j.mods[1], never), "a fragment was already waiting")
	if n := len(j.boxes[1].snapshot()); n != 0 {
		t.Fatalf("Doze delivered %d fragments: it only looks, the waiter polls", n)
	}
	if got := j.await(t, 1, 1); len(got) != 1 {
		t.Fatalf("rank 1 got %v", got)
	}
}

// A doze beside the listener of a rank whose other waiter sleeps: both
// count themselves as sleeping, the listener still delivers, and the
// count is the listener's alone after the doze. The listener may take
// the fragment before the doze looks: the engine's Wake then ends the
// doze, as here.
func TestDozeBesideTheListener(t *testing.T) {
	j := newTestJob(t, 2)
	j.mods[1].Idle()
	defer j.mods[1].Busy()
	returned := dozing(t, j.mods[1], never)
	if err := j.mods[0].Send(context.Background(), 1, []byte("h"), []byte{1}); err != nil {
		t.Fatal(err)
	}
	<-j.boxes[1].got // the listener delivered
	guard := time.After(time.Minute)
	for done := false; !done; {
		j.mods[1].Wake()
		select {
		case <-returned:
			done = true
		case <-guard:
			t.Fatal("Doze did not return after Wake with the listener running")
		case <-time.After(time.Millisecond):
		}
	}
	if n := j.mods[1].me.sleeping.Load(); n > 1 {
		t.Fatalf("%d sleepers announced with only the listener left", n)
	}
}

func TestDozeTimesOut(t *testing.T) {
	j := newTestJob(t, 2)
	returned := make(chan struct{})
	go func() {
		j.mods[1].Doze(time.Millisecond, never)
		close(returned)
	}()
	awaitReturn(t, returned, "its time-out")
	if n := j.mods[1].me.sleeping.Load(); n != 0 {
		t.Fatalf("sleeping = %d after the doze", n)
	}
}
