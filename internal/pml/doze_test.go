package pml

import (
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// fakeDozer is Routes whose Doze blocks until Wake or until ready says
// so, with no time-out: a waiter that nothing wakes hangs.
type fakeDozer struct {
	transports
	can     bool
	entered chan struct{} // one value per Doze
	wake    chan struct{}
	before  func()    // runs in the first Doze after the announcement, before ready
	byReady chan bool // what ready said in each Doze
}

func newFakeDozer(m btl.Module, can bool) *fakeDozer {
	return &fakeDozer{transports: transports{m}, can: can, entered: make(chan struct{}, 100),
		wake: make(chan struct{}, 1), byReady: make(chan bool, 100)}
}

func (f *fakeDozer) CanDoze() bool { return f.can }

func (f *fakeDozer) Doze(_ time.Duration, ready func() bool) {
	f.entered <- struct{}{}
	if f.before != nil {
		f.before()
		f.before = nil
	}
	r := ready()
	f.byReady <- r
	if !r {
		<-f.wake
	}
}

func (f *fakeDozer) Wake() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// dozingPair is two engines over a Loopback; rank 1 yields at once and
// dozes after a nanosecond in routes made by mk.
func dozingPair(t *testing.T, mk func(btl.Module) *fakeDozer) ([2]*Engine, *fakeDozer) {
	cfg := Config{YieldAtOnce: true, DozeAfter: time.Nanosecond, SleepAfter: time.Hour}
	es := [2]*Engine{New(0, hclog.NewNullLogger(), DefaultConfig()), New(1, hclog.NewNullLogger(), cfg)}
	lb := btltest.NewLoopback(64, 64, []btl.Receiver{es[0], es[1]})
	var ms [2]btl.Module
	for i := range ms {
		ms[i] = lb.Module(i)
		if _, err := ms[i].AddProcs(t.Context(), btltest.Procs(2)); err != nil {
			t.Fatal(err)
		}
	}
	f := mk(ms[1])
	es[0].Start(transports{ms[0]})
	es[1].Start(f)
	t.Cleanup(func() {
		lb.Close()
		es[0].Drain()
		es[1].Drain()
	})
	return es, f
}

// receiveWhileDozing starts a receive on rank 1, waits for its first
// Doze, then sends msg from rank 0; it returns the receive's status and
// buffer.
func receiveWhileDozing(t *testing.T, msg []byte) (Status, []byte) {
	es, f := dozingPair(t, func(m btl.Module) *fakeDozer { return newFakeDozer(m, true) })
	buf := make([]byte, len(msg))
	done := make(chan Status, 1)
	go func() { done <- es[1].Wait(es[1].Irecv(world, 0, 7, buf)) }()
	<-f.entered
	if err := es[0].Send(world, 1, 7, msg, false); err != nil {
		t.Fatal(err)
	}
	return <-done, buf
}

// A waiter that dozes is woken by a message that another goroutine (the
// Loopback's) delivers.
func TestDozingWaiterWokenByDelivery(t *testing.T) {
	if st, buf := receiveWhileDozing(t, []byte("doze")); st.Err != nil || st.Bytes != 4 || string(buf) != "doze" {
		t.Fatalf("status %+v, buffer %q", st, buf)
	}
}

// A message that arrives between the waiter's last look and its sleep,
// once it has announced itself, is seen before it sleeps: here it arrives,
// and its Wake is taken, inside Doze.
func TestDozeLooksAgainAfterAnnouncing(t *testing.T) {
	var es [2]*Engine
	es, f := dozingPair(t, func(m btl.Module) *fakeDozer {
		f := newFakeDozer(m, true)
		f.before = func() {
			if err := es[0].Send(world, 1, 7, []byte("late"), false); err != nil {
				t.Error(err)
			}
			<-f.wake
		}
		return f
	})
	buf := make([]byte, 4)
	done := make(chan Status, 1)
	go func() { done <- es[1].Wait(es[1].Irecv(world, 0, 7, buf)) }()
	if !<-f.byReady {
		t.Fatal("the waiter would sleep through a message that arrived after it announced itself")
	}
	if st := <-done; st.Err != nil || string(buf) != "late" {
		t.Fatalf("status %+v, buffer %q", st, buf)
	}
}

// Routes that cannot doze leave the waiter yielding: once it has waited
// past the threshold (its wait is recorded in the same look at the
// clock), it completes without a Doze.
func TestWaiterYieldsWhenRoutesCannotDoze(t *testing.T) {
	es, f := dozingPair(t, func(m btl.Module) *fakeDozer { return newFakeDozer(m, false) })
	buf := make([]byte, 1)
	done := make(chan Status, 1)
	go func() { done <- es[1].Wait(es[1].Irecv(world, 0, 7, buf)) }()
	for recorded := false; !recorded; {
		es[1].waits.mu.Lock()
		recorded = len(es[1].waits.all) > 0
		es[1].waits.mu.Unlock()
		runtime.Gosched()
	}
	if err := es[0].Send(world, 1, 7, []byte{9}, false); err != nil {
		t.Fatal(err)
	}
	if st := <-done; st.Err != nil || buf[0] != 9 {
		t.Fatalf("status %+v, buffer %v", st, buf)
	}
	if n := len(f.entered); n != 0 {
		t.Fatalf("%d Dozes in routes that cannot doze", n)
	}
}
