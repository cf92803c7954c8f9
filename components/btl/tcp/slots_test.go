package tcp

import (
	"net"
	"testing"
)

// socketPair returns both ends of a loopback TCP connection: the dialer's
// and the accepted one.
func socketPair(t *testing.T, l net.Listener) (dialed net.Conn, accepted *net.TCPConn) {
	t.Helper()
	d, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); a.Close() })
	return d, a.(*net.TCPConn)
}

// TestSlotsEvictTheOldestSilent fills the slots and checks who makes room
// for a newcomer: the oldest connection that shows nothing, not an older
// one whose hello waits in its socket, and never one that showed a hello.
func TestSlotsEvictTheOldestSilent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := newSlots(3)
	dHello, aHello := socketPair(t, l) // its hello waits, unread
	_, aProven := socketPair(t, l)     // its goroutine read a hello
	_, aSilent := socketPair(t, l)     // shows nothing
	_, aNew1 := socketPair(t, l)
	_, aNew2 := socketPair(t, l)
	dHello.Write(handshakeMsg{Type: msgHello, From: 0, To: 1}.Append(nil))
	waitFor(t, "the hello to arrive", func() bool { return helloWaiting(aHello) })

	hello, proven, silent := s.acquire(aHello), s.acquire(aProven), s.acquire(aSilent)
	if !s.prove(proven) {
		t.Fatal("a connection was evicted with slots to spare")
	}
	// Full: the newcomer evicts the silent connection, sparing the two
	// older ones, and gets its slot once the evicted one's goroutine
	// releases it.
	got := make(chan *slot)
	go func() { got <- s.acquire(aNew1) }()
	if _, err := aSilent.Read(make([]byte, 1)); err == nil {
		t.Fatal("read from the evicted connection")
	}
	if !s.release(silent) {
		t.Fatal("the silent connection was not evicted")
	}
	new1 := <-got
	// Full again, and no silent connection but the newcomer: it goes next.
	go func() { got <- s.acquire(aNew2) }()
	if _, err := aNew1.Read(make([]byte, 1)); err == nil {
		t.Fatal("read from the evicted connection")
	}
	if !s.release(new1) {
		t.Fatal("the silent newcomer was not evicted")
	}
	new2 := <-got
	if !s.prove(hello) || !s.prove(proven) {
		t.Fatal("a connection that showed a hello was evicted")
	}
	for _, sl := range []*slot{hello, proven, new2} {
		if s.release(sl) {
			t.Fatal("a slot released normally says it was evicted")
		}
	}
	if used, peak := s.stats(); used != 0 || peak != 3 {
		t.Fatalf("%d slots used, %d at most; want 0 and 3", used, peak)
	}
	// Closed: acquire gives up at once.
	s.close()
	if s.acquire(aNew2) != nil {
		t.Fatal("acquired a slot after close")
	}
}
