package launcher

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// TestForwardStdinCredit: without acknowledgements gompirun sends no
// more than stdinWindow frames of stdin, then stops when the daemon is
// gone.
func TestForwardStdinCredit(t *testing.T) {
	pr, pw := io.Pipe()
	feed := newStdinFeed()
	gone := make(chan struct{})
	done := make(chan struct{})
	payload := bytes.Repeat([]byte("x"), (stdinWindow+4)*stdinChunk)
	go func() {
		defer close(done)
		forwardStdin(bytes.NewReader(payload), &frameWriter{w: pw}, feed, gone)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	for i := range stdinWindow {
		f, err := readFrame(br)
		if err != nil || f.kind != frameStdin || len(f.payload) != stdinChunk {
			t.Fatalf("frame %d: kind %d, %d bytes, %v; want a stdin frame of %d bytes", i, f.kind, len(f.payload), err, stdinChunk)
		}
	}
	close(gone) // no credit is left: only this ends the wait
	if f, err := readFrame(br); err != io.EOF {
		t.Errorf("after %d frames without credit: kind %d, %v; want the end", stdinWindow, f.kind, err)
	}
	<-done
}

// TestForwardStdinEnd: every byte is sent, under credit, then the end.
func TestForwardStdinEnd(t *testing.T) {
	pr, pw := io.Pipe()
	feed := newStdinFeed()
	payload := bytes.Repeat([]byte("0123456789"), stdinWindow*stdinChunk/5)
	go forwardStdin(bytes.NewReader(payload), &frameWriter{w: pw}, feed, nil)
	br := bufio.NewReader(pr)
	var got []byte
	for {
		f, err := readFrame(br)
		if err != nil {
			t.Fatal(err)
		}
		if f.kind == frameStdinEOF {
			break
		}
		got = append(got, f.payload...)
		feed.acked(false)
	}
	if !bytes.Equal(got, payload) {
		t.Errorf("forwarded %d bytes, want the %d of stdin", len(got), len(payload))
	}
}

// TestForwardStdinClosed: once the daemon says rank 0's stdin is
// closed, the forwarding stops without sending the end.
func TestForwardStdinClosed(t *testing.T) {
	pr, pw := io.Pipe()
	feed := newStdinFeed()
	done := make(chan struct{})
	go func() {
		defer close(done)
		forwardStdin(strings.NewReader(strings.Repeat("y", 4*stdinWindow*stdinChunk)), &frameWriter{w: pw}, feed, nil)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	n := 0
	for {
		f, err := readFrame(br)
		if err == io.EOF {
			break
		}
		if err != nil || f.kind != frameStdin {
			t.Fatalf("kind %d, %v; want stdin frames, then nothing", f.kind, err)
		}
		if n++; n == 1 {
			feed.acked(true)
		}
	}
	<-done
	if n > stdinWindow+1 {
		t.Errorf("%d frames sent after rank 0's stdin closed with a window of %d", n, stdinWindow)
	}
}

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

// TestForwardsStdin: gompirun forwards its stdin when rank 0 runs on
// another host, unless it is /dev/null or there is none.
func TestForwardsStdin(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(t.TempDir() + "/in")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tt := range []struct {
		name  string
		stdin *os.File
		hosts []string
		want  bool
	}{
		{"a file to a remote rank 0", file, []string{"h2", "h1"}, true},
		{"a file to a local rank 0", file, []string{"h1", "h2"}, false},
		{"/dev/null", null, []string{"h2", "h1"}, false},
		{"no stdin", nil, []string{"h2", "h1"}, false},
		{"no hosts", file, nil, false},
	} {
		j := &job{cfg: Config{Stdin: tt.stdin, Hosts: tt.hosts, LocalHost: "h1"}, log: hclog.NewNullLogger()}
		if got := j.forwardsStdin(); got != tt.want {
			t.Errorf("%s: forwards %v, want %v", tt.name, got, tt.want)
		}
	}
}
