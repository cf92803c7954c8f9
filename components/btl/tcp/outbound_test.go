package tcp

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestSendWritesWholeFrames sends frames far larger than the socket's
// buffers, so that every write is partial and most would block, to a
// reader that starts late: the bytes must arrive whole and in order.
func TestSendWritesWholeFrames(t *testing.T) {
	nc, peer := connectedPair(t)
	c := newConn(&Module{}, nc.(*net.TCPConn))
	payloads := [][]byte{bytes.Repeat([]byte("abcdefg"), 9<<20/7), {1}, bytes.Repeat([]byte{9, 8, 7}, 3<<20)}
	got := lateReader(peer)
	var want []byte
	for i, p := range payloads {
		hdr := []byte{byte(i), 'h'}
		if err := c.send(hdr, p, false); err != nil {
			t.Fatal(err)
		}
		fh := make([]byte, frameHeaderSize)
		frameHeader{HeaderLen: len(hdr), PayloadLen: len(p)}.Put(fh)
		want = append(append(append(want, fh...), hdr...), p...)
	}
	nc.Close()
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("received %d bytes that differ from the %d sent", len(b), len(want))
	}
}

// connectedPair returns the two ends of a loopback tcp connection.
func connectedPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return nc, peer
}

// lateReader reads everything from peer once a writer has had to wait for
// room, and hands it over when the connection ends.
func lateReader(peer net.Conn) <-chan []byte {
	got := make(chan []byte)
	go func() {
		time.Sleep(50 * time.Millisecond) // longer than writeSpin: the writer must wait for room
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	return got
}
