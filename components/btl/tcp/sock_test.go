package tcp

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sockPair returns a sock of w's and the descriptor of its other end.
func sockPair(t *testing.T, w *wakers) (*sock, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[1]) })
	return w.attach(fds[0]), fds[1]
}

func newTestWaker(t *testing.T) *wakers {
	t.Helper()
	w, err := newWakers()
	if err != nil {
		t.Skipf("no epoll here: %v", err)
	}
	t.Cleanup(w.stop)
	return w
}

// recvInto reads what the socket has into got.
func recvInto(got *[]byte) func(fd uintptr) bool {
	return func(fd uintptr) bool {
		var b [64]byte
		n, err := unix.Read(int(fd), b[:])
		if n > 0 {
			*got = append(*got, b[:n]...)
		}
		return err == nil && n > 0 || err != nil && err != unix.EAGAIN
	}
}

func TestSockReadWaitsForBytes(t *testing.T) {
	w := newTestWaker(t)
	s, peer := sockPair(t, w)
	defer s.close()
	for _, msg := range []string{"one", "two"} { // the second wait re-arms
		var got []byte
		done := make(chan error, 1)
		go func() { done <- s.Read(recvInto(&got)) }()
		if _, err := unix.Write(peer, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("Read: %v", err)
		}
		if string(got) != msg {
			t.Fatalf("read %q, want %q", got, msg)
		}
	}
}

func TestSockCloseEndsWaits(t *testing.T) {
	w := newTestWaker(t)
	s, _ := sockPair(t, w)
	var got []byte
	reading := make(chan error, 1)
	go func() { reading <- s.Read(recvInto(&got)) }()
	// A writer whose peer never reads fills the socket, then waits for room.
	writing := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		writing <- s.Write(func(fd uintptr) bool {
			_, err := unix.Write(int(fd), buf)
			return err != nil && err != unix.EAGAIN
		})
	}()
	s.close()
	if err := <-reading; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after close: %v, want net.ErrClosed", err)
	}
	if err := <-writing; err != nil && !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after close: %v, want nil (its write failed) or net.ErrClosed", err)
	}
	if err := s.Control(func(uintptr) { t.Error("Control ran on a closed socket") }); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Control after close: %v, want net.ErrClosed", err)
	}
}

func TestSockWriteWithinTimesOut(t *testing.T) {
	w := newTestWaker(t)
	s, peer := sockPair(t, w)
	defer s.close()
	unix.SetsockoptInt(peer, unix.SOL_SOCKET, unix.SO_RCVBUF, 4096)
	err := s.writeWithin(make([]byte, 8<<20), 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("writing 8 MiB to a peer that never reads: %v, want a time-out", err)
	}
}
