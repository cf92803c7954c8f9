package launcher

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/node"
)

// TestForwardStdinCredit: without acknowledgements gompirun sends no
// more than node.StdinWindow frames of stdin, then stops when the daemon is
// gone.
func TestForwardStdinCredit(t *testing.T) {
	pr, pw := io.Pipe()
	feed := newStdinFeed()
	gone := make(chan struct{})
	done := make(chan struct{})
	payload := bytes.Repeat([]byte("x"), (node.StdinWindow+4)*stdinChunk)
	go func() {
		defer close(done)
		forwardStdin(bytes.NewReader(payload), node.NewFrameWriter(pw), feed, gone)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	for i := range node.StdinWindow {
		f, err := node.ReadFrame(br)
		if err != nil || f.Kind != node.FrameStdin || len(f.Payload) != stdinChunk {
			t.Fatalf("frame %d: kind %d, %d bytes, %v; want a stdin frame of %d bytes", i, f.Kind, len(f.Payload), err, stdinChunk)
		}
	}
	close(gone) // no credit is left: only this ends the wait
	if f, err := node.ReadFrame(br); err != io.EOF {
		t.Errorf("after %d frames without credit: kind %d, %v; want the end", node.StdinWindow, f.Kind, err)
	}
	<-done
}

// TestForwardStdinEnd: every byte is sent, under credit, then the end.
func TestForwardStdinEnd(t *testing.T) {
	pr, pw := io.Pipe()
	feed := newStdinFeed()
	payload := bytes.Repeat([]byte("0123456789"), node.StdinWindow*stdinChunk/5)
	go forwardStdin(bytes.NewReader(payload), node.NewFrameWriter(pw), feed, nil)
	br := bufio.NewReader(pr)
	var got []byte
	for {
		f, err := node.ReadFrame(br)
		if err != nil {
			t.Fatal(err)
		}
		if f.Kind == node.FrameStdinEOF {
			break
		}
		got = append(got, f.Payload...)
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
		forwardStdin(strings.NewReader(strings.Repeat("y", 4*node.StdinWindow*stdinChunk)), node.NewFrameWriter(pw), feed, nil)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	n := 0
	for {
		f, err := node.ReadFrame(br)
		if err == io.EOF {
			break
		}
		if err != nil || f.Kind != node.FrameStdin {
			t.Fatalf("kind %d, %v; want stdin frames, then nothing", f.Kind, err)
		}
		if n++; n == 1 {
			feed.acked(true)
		}
	}
	<-done
	if n > node.StdinWindow+1 {
		t.Errorf("%d frames sent after rank 0's stdin closed with a window of %d", n, node.StdinWindow)
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
