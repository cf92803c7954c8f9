package node

import (
	"io"
	"os"
	"testing"
)

// TestStdinSink: the chunks reach rank 0's stdin in order, then its end;
// each is acknowledged.
func TestStdinSink(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	acks := make(chan bool, 4)
	s := newStdinSink(w, func(closed bool) { acks <- closed })
	s.push([]byte("hello, "))
	s.push([]byte("rank 0"))
	s.push(nil)
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "hello, rank 0" {
		t.Errorf("rank 0 read %q, %v; want %q and the end", got, err, "hello, rank 0")
	}
	for range 2 {
		if closed := <-acks; closed {
			t.Error("a chunk rank 0 read was acknowledged as thrown away")
		}
	}
}

// TestStdinSinkReaderGone: when rank 0 no longer reads its stdin, the
// chunks are acknowledged as thrown away, and nothing blocks.
func TestStdinSinkReaderGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	acks := make(chan bool, 2)
	s := newStdinSink(w, func(closed bool) { acks <- closed })
	s.push([]byte("nobody reads this"))
	s.push([]byte("nor this"))
	for i := range 2 {
		if closed := <-acks; !closed {
			t.Errorf("chunk %d: acknowledged as written to a stdin nobody reads", i)
		}
	}
}
