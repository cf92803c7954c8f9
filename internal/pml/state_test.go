package pml

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitRecorded polls e's state until cond holds; the deadline is a hang
// guard, not a measurement.
func waitRecorded(t *testing.T, e *Engine, cond func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := e.State(10)
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("state never became as expected: %+v", s)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStateListsPendingOperationsAndUnexpectedMessages(t *testing.T) {
	nt := newNet(t, 2, 64, 1024)
	a, b := nt.engines[0], nt.engines[1]
	// An unexpected message at rank 1: tag 8, while it waits for tag 7.
	if st := a.Wait(a.Isend(5, 1, 8, []byte("hello"), false)); st.Err != nil {
		t.Fatal(st.Err)
	}
	waitRecorded(t, b, func(s State) bool { return s.UnexpectedTotal == 1 })
	r := b.Irecv(5, 0, 7, make([]byte, 16))
	done := make(chan Status)
	go func() { done <- b.Wait(r) }()
	s := waitRecorded(t, b, func(s State) bool { return len(s.Pending) == 1 && s.Pending[0].Wait != nil })
	op := s.Pending[0]
	if op.Kind != OpRecv || op.Context != 5 || op.Peer != 0 || op.Tag != 7 || op.Bytes != 16 {
		t.Errorf("pending %+v, want a receive from 0 tag 7 on context 5 of 16 bytes", op)
	}
	if len(s.Unexpected) != 1 || s.Unexpected[0] != (Message{Context: 5, From: 0, Tag: 8, Size: 5}) {
		t.Errorf("unexpected %+v", s.Unexpected)
	}
	// The record carries the waiting goroutine's stack: this test's
	// goroutine literal calls Wait.
	frames := runtime.CallersFrames(op.Wait.PCs)
	found := false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/gompi/gompi/internal/pml.TestStateListsPending") {
			found = true
		}
		if !more {
			break
		}
	}
	if !found {
		t.Error("the wait's stack does not reach the test")
	}
	if op.Wait.Since.IsZero() {
		t.Errorf("wait since %v", op.Wait.Since)
	}
	// The message arrives: the wait ends and is no longer recorded.
	if st := a.Wait(a.Isend(5, 1, 7, []byte("late"), false)); st.Err != nil {
		t.Fatal(st.Err)
	}
	<-done
	if s := b.State(10); len(s.Pending) != 0 {
		t.Errorf("still pending after completion: %+v", s.Pending)
	}
}

func TestStateListsAWaitingProbe(t *testing.T) {
	nt := newNet(t, 2, 64, 1024)
	a, b := nt.engines[0], nt.engines[1]
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := b.Probe(3, 0, 9); err != nil {
			t.Error(err)
		}
	}()
	s := waitRecorded(t, b, func(s State) bool { return len(s.Pending) == 1 })
	if op := s.Pending[0]; op.Kind != OpProbe || op.Peer != 0 || op.Tag != 9 || op.Context != 3 || op.Wait == nil {
		t.Errorf("pending %+v, want a probe of 0 tag 9 on context 3", op)
	}
	if st := a.Wait(a.Isend(3, 1, 9, []byte("x"), false)); st.Err != nil {
		t.Fatal(st.Err)
	}
	<-done
}
