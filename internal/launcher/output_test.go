package launcher

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 123e6, time.Local)
	tests := []struct {
		opts OutputOptions
		kind streamKind
		line string
		want string
	}{
		{OutputOptions{}, stdoutStream, "hello\n", "hello\n"},
		{OutputOptions{}, stdoutStream, "last", "last"},
		{OutputOptions{Tag: true}, stdoutStream, "hello\n", "[ab12,3]<stdout>:hello\n"},
		{OutputOptions{Tag: true}, stderrStream, "oops\n", "[ab12,3]<stderr>:oops\n"},
		{OutputOptions{Tag: true}, stdoutStream, "last", "[ab12,3]<stdout>:last\n"},
		{OutputOptions{Timestamp: true}, stdoutStream, "hi\n", "2026-01-02 15:04:05.123 hi\n"},
		{OutputOptions{Tag: true, Timestamp: true}, stderrStream, "hi\n", "[ab12,3]<stderr>:2026-01-02 15:04:05.123 hi\n"},
	}
	for _, tt := range tests {
		f := &forwarder{jobID: "ab12", opts: tt.opts, now: func() time.Time { return at }}
		if got := string(f.format(nil, 3, tt.kind, []byte(tt.line))); got != tt.want {
			t.Errorf("format(%+v, %q) = %q, want %q", tt.opts, tt.line, got, tt.want)
		}
	}
	// Across hosts the tag names the rank's host.
	f := &forwarder{jobID: "ab12", hosts: tagHosts(Config{Hosts: []string{"", "", "", "n2"}, LocalHost: "n1"}), opts: OutputOptions{Tag: true}}
	for rank, want := range []string{"[ab12,0][n1]<stdout>:hi\n", "[ab12,3][n2]<stdout>:hi\n"} {
		if got := string(f.format(nil, rank*3, stdoutStream, []byte("hi\n"))); got != want {
			t.Errorf("across hosts, rank %d: %q, want %q", rank*3, got, want)
		}
	}
	if h := tagHosts(Config{Hosts: []string{"n1", "", "n1"}, LocalHost: "n1"}); h != nil {
		t.Errorf("a job on one host tags hosts %v, want none", h)
	}
}

func TestPumpKeepsLinesWhole(t *testing.T) {
	var out, errOut bytes.Buffer
	term := newTerminal(&out, &errOut)
	f := &forwarder{jobID: "j", opts: OutputOptions{Tag: true}, term: term, now: time.Now}

	// Several ranks write their lines in many small pieces at once.
	const ranks, lines = 4, 200
	var wg sync.WaitGroup
	var files [ranks]bytes.Buffer
	for rank := range ranks {
		r, w := io.Pipe()
		wg.Add(2)
		go func() {
			defer wg.Done()
			f.pump(r, rank, stdoutStream, &files[rank])
		}()
		go func() {
			defer wg.Done()
			for i := range lines {
				line := fmt.Sprintf("rank %d line %d %s\n", rank, i, strings.Repeat("x", i))
				for len(line) > 0 {
					n := min(7, len(line))
					w.Write([]byte(line[:n]))
					line = line[n:]
				}
			}
			w.Write([]byte("tail without newline"))
			w.Close()
		}()
	}
	wg.Wait()

	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != ranks*(lines+1) {
		t.Fatalf("got %d lines, want %d", len(got), ranks*(lines+1))
	}
	next := make([]int, ranks)
	for _, l := range got {
		var rank, i int
		if _, err := fmt.Sscanf(l, "[j,%d]<stdout>:", &rank); err != nil {
			t.Fatalf("line %q has no tag", l)
		}
		body := l[strings.Index(l, ":")+1:]
		if body == "tail without newline" {
			next[rank] = -1
			continue
		}
		if _, err := fmt.Sscanf(body, "rank %d line %d", &rank, &i); err != nil || i != next[rank] ||
			body != fmt.Sprintf("rank %d line %d %s", rank, i, strings.Repeat("x", i)) {
			t.Fatalf("line %q is mangled or out of order (want line %d of rank %d)", l, next[rank], rank)
		}
		next[rank]++
	}
	for rank, n := range next {
		if n != -1 {
			t.Errorf("rank %d: last line without newline not delivered", rank)
		}
		if want := "tail without newline"; !strings.HasSuffix(files[rank].String(), "\n"+want) {
			t.Errorf("rank %d: file copy does not end with the raw %q", rank, want)
		}
	}
}

func TestPumpLongLine(t *testing.T) {
	var out bytes.Buffer
	f := &forwarder{term: newTerminal(&out, io.Discard), now: time.Now}
	long := strings.Repeat("y", 200<<10) + "\n"
	f.pump(strings.NewReader(long+"short\n"), 0, stdoutStream, nil)
	if out.String() != long+"short\n" {
		t.Fatalf("a line longer than the read buffer was not forwarded intact (%d bytes out)", out.Len())
	}
}

func TestPumpLinesPastMaxLine(t *testing.T) {
	for _, n := range []int{maxLine - 1, maxLine, maxLine + 1, 3 * maxLine} {
		line := strings.Repeat("y", n)
		for _, in := range []string{line + "\nnext\n", "a\n" + line} {
			var out, file bytes.Buffer
			f := &forwarder{term: newTerminal(&out, io.Discard), now: time.Now}
			f.pump(strings.NewReader(in), 0, stdoutStream, &file)
			if out.String() != in || file.String() != in {
				t.Errorf("untagged, %d bytes of a %d-byte line out of %d, %d in the file: want them byte for byte",
					out.Len(), n, len(in), file.Len())
			}

			out.Reset()
			f = &forwarder{jobID: "j", opts: OutputOptions{Tag: true}, term: newTerminal(&out, io.Discard), now: time.Now}
			f.pump(strings.NewReader(in), 0, stdoutStream, nil)
			var body strings.Builder
			for _, l := range strings.SplitAfter(out.String(), "\n") {
				if l == "" {
					continue
				}
				rest, ok := strings.CutPrefix(l, "[j,0]<stdout>:")
				if !ok || rest == "\n" {
					t.Fatalf("tagged, a %d-byte line: record %.40q is untagged or empty", n, l)
				}
				body.WriteString(strings.TrimSuffix(rest, "\n"))
			}
			if want := strings.ReplaceAll(in, "\n", ""); body.String() != want {
				t.Errorf("tagged, a %d-byte line: the records hold %d bytes, want %d", n, body.Len(), len(want))
			}
		}
	}
}

func TestTerminalJoinsPiecesOfOneRank(t *testing.T) {
	var out bytes.Buffer
	term := newTerminal(&out, io.Discard)
	term.writeFrom(stdoutStream, 0, []byte("rank 0 start "))
	term.writeFrom(stdoutStream, 0, []byte("rank 0 end\n"))
	term.writeFrom(stdoutStream, 1, []byte("rank 1 start "))
	term.writeFrom(stdoutStream, 0, []byte("rank 0 line\n"))
	term.writeFrom(stdoutStream, 1, []byte("rank 1 end\n"))
	term.writeFrom(stdoutStream, 1, []byte("rank 1 last"))
	term.write(stdoutStream, []byte("gompirun's\n"))
	<-term.flushed()
	want := "rank 0 start rank 0 end\nrank 1 start \nrank 0 line\nrank 1 end\nrank 1 last\ngompirun's\n"
	if out.String() != want {
		t.Fatalf("terminal got %q, want %q", out.String(), want)
	}
}

func TestTerminalSeparatesUnfinishedLines(t *testing.T) {
	var out bytes.Buffer
	term := newTerminal(&out, io.Discard)
	term.write(stdoutStream, []byte("rank 0 last"))
	term.write(stdoutStream, []byte("rank 1 line\n"))
	term.write(stdoutStream, []byte("rank 1 last"))
	<-term.flushed()
	if want := "rank 0 last\nrank 1 line\nrank 1 last"; out.String() != want {
		t.Fatalf("terminal got %q, want %q", out.String(), want)
	}
}

// notifyWriter is a terminal stream that says when it has received
// what a test waits for.
type notifyWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *notifyWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return len(b), nil
}

func TestPumpForwardsAPromptThatWaits(t *testing.T) {
	for _, tag := range []bool{false, true} {
		out := &notifyWriter{want: "Enter n: ", seen: make(chan struct{})}
		seen := out.seen
		f := &forwarder{jobID: "j", opts: OutputOptions{Tag: tag}, term: newTerminal(out, io.Discard), now: time.Now,
			partialAfter: time.Millisecond}
		r, w := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			f.pump(r, 0, stdoutStream, nil)
		}()
		// The rank waits for its answer with the prompt unfinished: the
		// prompt must reach the terminal before the rest of the line.
		w.Write([]byte("Enter n: "))
		select {
		case <-seen:
		case <-time.After(time.Minute):
			t.Fatalf("tag %v: the prompt %q never reached the terminal while the line waited for its end", tag, "Enter n: ")
		}
		w.Write([]byte("5\nnext\n"))
		w.Close()
		<-done
		want := "Enter n: 5\nnext\n"
		if tag {
			want = "[j,0]<stdout>:Enter n: \n[j,0]<stdout>:5\n[j,0]<stdout>:next\n"
		}
		if got := out.buf.String(); got != want {
			t.Errorf("tag %v: terminal got %q, want %q", tag, got, want)
		}
	}
}

// stuckWriter is a stream nobody reads: no Write returns before the test
// ends, and the first closes entered.
type stuckWriter struct {
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func newStuckWriter(t *testing.T) *stuckWriter {
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(w.release) })
	return w
}

func (w *stuckWriter) Write([]byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return 0, io.ErrClosedPipe
}

const droppedNote = "gompirun: dropped output of the ranks that could not be written to stdout once the job was stopped\n"

// TestDropKeepsMessages: once the output is dropped, gompirun's messages
// are still written, also beside a rank's write that never returns.
func TestDropKeepsMessages(t *testing.T) {
	stuck := newStuckWriter(t)
	stderr := &notifyWriter{want: "gompirun: last\n", seen: make(chan struct{})}
	seen := stderr.seen
	term := newTerminal(stuck, stderr)
	go term.writeFrom(stdoutStream, 0, []byte("never written\n"))
	<-stuck.entered
	term.write(stderrStream, []byte("gompirun: first\n"))
	term.drop()
	term.writeFrom(stderrStream, 1, []byte("dropped\n")) // returns at once
	term.write(stderrStream, []byte("gompirun: last\n"))
	<-seen
	stderr.mu.Lock()
	defer stderr.mu.Unlock()
	if want := "gompirun: first\n" + droppedNote + "gompirun: last\n"; stderr.buf.String() != want {
		t.Errorf("stderr %q, want %q", stderr.buf.String(), want)
	}
}
