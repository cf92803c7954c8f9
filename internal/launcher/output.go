package launcher

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/node"
)

// OutputOptions says how the ranks' output is forwarded.
type OutputOptions struct {
	// Tag prefixes every line with [jobid,rank]<stdout>: or <stderr>:;
	// in a job across hosts, [jobid,rank][host]<stdout>:.
	Tag bool
	// Timestamp prefixes every line with the local time it was read.
	Timestamp bool
	// Dir, if set, also receives each rank's output, untagged, in
	// Dir/1/rank.N/stdout and Dir/1/rank.N/stderr ("1" is the job's number
	// within this launch, as in Open MPI's layout).
	Dir string
}

// maxLine bounds how much of one line is held before it is forwarded
// anyway, so a rank printing without newlines cannot exhaust memory.
const maxLine = 1 << 20

// timestampLayout is used by OutputOptions.Timestamp.
const timestampLayout = "2006-01-02 15:04:05.000"

type streamKind int

// The streams, numbered as the daemon's output frames number them.
const (
	stdoutStream = streamKind(node.Stdout)
	stderrStream = streamKind(node.Stderr)
)

func (k streamKind) String() string {
	if k == stderrStream {
		return "stderr"
	}
	return "stdout"
}

// terminal serializes whole lines from every rank, and gompirun's own
// messages, onto gompirun's stdout and stderr. One gate covers both
// streams, since they are often the same terminal.
//
// The ranks' output is written by the pumps themselves, and waits for
// the terminal as long as it takes: nothing is lost while the job runs
// or ends of itself. gompirun's own messages are written by a goroutine
// of their own, in order, so that the supervisor never waits for a
// terminal nobody reads. Once the user has asked gompirun to stop and the
// ranks are dead, drop gives up on what cannot be written.
type terminal struct {
	gate    chan struct{} // held while writing
	out     [2]io.Writer
	midLine [2]bool // the last write to the stream did not end a line
	owner   [2]int  // who wrote it: rank+1, or 0 for gompirun itself

	busy    atomic.Int32 // a rank's output is being written to stream busy-1; 0: none
	dropped atomic.Bool  // drop was called: set before gone closes
	gone    chan struct{}
	noted   atomic.Bool // the note that output was dropped is posted

	qmu     sync.Mutex
	queue   []message // gompirun's messages not written yet
	posting bool      // a goroutine writes the queue
	beside  bool      // after drop, messages no longer wait for a write that does not return
}

// message is one of gompirun's messages, or, with done set, a mark that
// closes done once the messages before it are written.
type message struct {
	kind streamKind
	b    []byte
	done chan struct{}
}

// gateWait is how long, once output is dropped, a message waits for a
// rank's write in progress before it is written beside it: that write is
// stuck on a stream nobody reads, perhaps not the message's.
const gateWait = 100 * time.Millisecond

func newTerminal(stdout, stderr io.Writer) *terminal {
	return &terminal{gate: make(chan struct{}, 1), out: [2]io.Writer{stdout, stderr}, gone: make(chan struct{})}
}

// write posts b, gompirun's own, to be written to the stream kind after
// the messages posted before it; it returns at once. If the previous
// write left a line unfinished (a rank's last line without newline), a
// newline goes first, so that text and the next line never run together.
func (t *terminal) write(kind streamKind, b []byte) { t.post(message{kind: kind, b: bytes.Clone(b)}) }

// flushed returns a channel closed once every message posted before is
// written.
func (t *terminal) flushed() <-chan struct{} {
	done := make(chan struct{})
	t.post(message{done: done})
	return done
}

func (t *terminal) post(m message) {
	t.qmu.Lock()
	t.queue = append(t.queue, m)
	start := !t.posting
	t.posting = true
	t.qmu.Unlock()
	if start {
		go t.deliver()
	}
}

// deliver writes the queue's messages until it is empty.
func (t *terminal) deliver() {
	for {
		t.qmu.Lock()
		if len(t.queue) == 0 {
			t.queue, t.posting = nil, false
			t.qmu.Unlock()
			return
		}
		m := t.queue[0]
		t.queue = t.queue[1:]
		beside := t.beside
		t.qmu.Unlock()
		switch {
		case m.done != nil:
			close(m.done)
		case beside:
			_, _ = t.out[m.kind].Write(m.b)
		default:
			t.deliverOne(m)
		}
	}
}

func (t *terminal) deliverOne(m message) {
	select {
	case t.gate <- struct{}{}:
	case <-t.gone:
		select {
		case t.gate <- struct{}{}:
		case <-time.After(gateWait):
			t.qmu.Lock()
			t.beside = true
			t.qmu.Unlock()
			_, _ = t.out[m.kind].Write(m.b)
			return
		}
	}
	t.put(m.kind, -1, m.b)
	<-t.gate
}

// writeFrom writes b, a rank's output, with one Write call, once the
// writes before it are done; the rest of a long line from the rank that
// left it unfinished goes on without a newline: untagged output stays
// byte for byte. After drop, b is dropped. Errors are ignored: a closed
// terminal must not stop the job.
func (t *terminal) writeFrom(kind streamKind, rank int, b []byte) {
	if len(b) == 0 {
		return
	}
	select {
	case t.gate <- struct{}{}:
	case <-t.gone:
		t.lost(kind)
		return
	}
	defer func() { <-t.gate }()
	// busy is set before dropped is read, and drop sets dropped before
	// it reads busy: a write that drop does not see is one that sees drop.
	t.busy.Store(int32(kind) + 1)
	defer t.busy.Store(0)
	if t.dropped.Load() {
		t.lost(kind)
		return
	}
	t.put(kind, rank, b)
}

// put writes b to the stream kind for rank (-1: gompirun); the caller
// holds the gate.
func (t *terminal) put(kind streamKind, rank int, b []byte) {
	if t.midLine[kind] && (rank < 0 || t.owner[kind] != rank+1) {
		b = append([]byte{'\n'}, b...)
	}
	_, _ = t.out[kind].Write(b)
	t.midLine[kind] = b[len(b)-1] != '\n'
	t.owner[kind] = rank + 1
}

// drop gives up on the ranks' output that is not written yet: a write in
// progress is left to itself (it may never return), and the ranks'
// output from now on is dropped. gompirun's messages are still written,
// beside a write that does not return.
func (t *terminal) drop() {
	if t.dropped.Swap(true) {
		return
	}
	close(t.gone)
	if k := t.busy.Load(); k != 0 {
		t.lost(streamKind(k - 1))
	}
}

// lost says once, on stderr, that the ranks' output was dropped, naming
// the stream of a write in progress, if any: the one nobody reads.
func (t *terminal) lost(kind streamKind) {
	if t.noted.Swap(true) {
		return
	}
	if k := t.busy.Load(); k != 0 {
		kind = streamKind(k - 1)
	}
	t.write(stderrStream, []byte("gompirun: dropped output of the ranks that could not be written to "+kind.String()+" once the job was stopped\n"))
}

// stderr returns a writer for gompirun's own messages; each Write is
// posted as a message (see write), and lands between the ranks' lines,
// never inside one.
func (t *terminal) stderr() io.Writer { return terminalWriter{t, stderrStream} }

type terminalWriter struct {
	t    *terminal
	kind streamKind
}

func (w terminalWriter) Write(b []byte) (int, error) {
	w.t.write(w.kind, b)
	return len(b), nil
}

// forwarder copies the ranks' output to the terminal and to files.
type forwarder struct {
	jobID string
	hosts []string // each rank's host, for the tags of a job across hosts; nil on one host
	opts  OutputOptions
	term  *terminal
	now   func() time.Time
	// partialAfter is how long the start of a line waits for its end
	// before it is forwarded anyway (a prompt, progress dots); 0 waits
	// for the whole line.
	partialAfter time.Duration
}

// partialAfter's value in gompirun: a line written in several pieces in
// quick succession stays whole, a prompt shows at once to the eye.
const partialLineWait = 100 * time.Millisecond

// pump forwards r line by line until EOF or a read error (such as r being
// closed). file, if not nil, receives the raw output too. A last line
// without newline is still forwarded (see terminal.write), and so is the
// start of a line that has waited partialAfter for its end. A line
// longer than maxLine is forwarded in pieces of maxLine bytes: untagged,
// the pieces join up again as the line; tagged, each is a line of its own.
func (f *forwarder) pump(r io.Reader, rank int, kind streamKind, file io.Writer) {
	reads, free := make(chan []byte), make(chan []byte)
	go func() {
		defer close(reads)
		b := make([]byte, 64<<10)
		for {
			n, err := r.Read(b)
			if n > 0 {
				reads <- b[:n]
				b = <-free // the pump has forwarded it
			}
			if err != nil { // io.EOF, or the pipe was closed
				return
			}
		}
	}()
	var line []byte // the start of a line, not forwarded yet
	var buf []byte
	cut := false // the last piece forwarded ended no line
	emit := func(b []byte) {
		if file != nil {
			_, _ = file.Write(b) // a full disk must not stop the job
		}
		if cut && len(b) == 1 && b[0] == '\n' && (f.opts.Tag || f.opts.Timestamp) {
			// The line ended where it was cut: format ended it already.
			cut = false
			return
		}
		buf = f.format(buf[:0], rank, kind, b)
		f.term.writeFrom(kind, rank, buf)
		cut = b[len(b)-1] != '\n'
	}
	var wait *time.Timer
	var waited <-chan time.Time
	for {
		select {
		case b, ok := <-reads:
			if !ok {
				if len(line) > 0 {
					emit(line)
				}
				return
			}
			chunk := b
			for {
				i := bytes.IndexByte(b, '\n')
				if i < 0 {
					break
				}
				if len(line) > 0 {
					line = append(line, b[:i+1]...)
					emit(line)
					line = line[:0]
				} else {
					emit(b[:i+1])
				}
				b = b[i+1:]
			}
			line = append(line, b...)
			free <- chunk[:cap(chunk)]
			for len(line) >= maxLine {
				emit(line[:maxLine])
				line = append(line[:0], line[maxLine:]...)
			}
			switch {
			case len(line) == 0 || f.partialAfter == 0:
				if wait != nil {
					wait.Stop()
				}
			case wait == nil:
				wait = time.NewTimer(f.partialAfter)
				waited = wait.C
			default:
				wait.Reset(f.partialAfter)
			}
		case <-waited:
			if len(line) > 0 {
				emit(line)
				line = line[:0]
			}
		}
	}
}

// format appends line with the configured prefixes to dst.
func (f *forwarder) format(dst []byte, rank int, kind streamKind, line []byte) []byte {
	if f.opts.Tag {
		dst = append(dst, '[')
		dst = append(dst, f.jobID...)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(rank), 10)
		if rank < len(f.hosts) {
			dst = append(dst, "]["...)
			dst = append(dst, f.hosts[rank]...)
		}
		dst = append(dst, "]<"...)
		dst = append(dst, kind.String()...)
		dst = append(dst, ">:"...)
	}
	if f.opts.Timestamp {
		dst = f.now().AppendFormat(dst, timestampLayout)
		dst = append(dst, ' ')
	}
	dst = append(dst, line...)
	if (f.opts.Tag || f.opts.Timestamp) && (len(line) == 0 || line[len(line)-1] != '\n') {
		dst = append(dst, '\n')
	}
	return dst
}

// tagHosts is each rank's host for the output's tags when the job spans
// several hosts, else nil.
func tagHosts(cfg Config) []string {
	if len(cfg.Hosts) == 0 {
		return nil
	}
	hosts := make([]string, len(cfg.Hosts))
	for r, h := range cfg.Hosts {
		if h == "" {
			h = cfg.LocalHost
		}
		hosts[r] = h
	}
	for _, h := range hosts {
		if h != hosts[0] {
			return hosts
		}
	}
	return nil
}

// openOutputFiles creates dir/1/rank.N/{stdout,stderr} for every rank.
func openOutputFiles(dir string, np int) ([][2]*os.File, error) {
	var files [][2]*os.File
	for rank := range np {
		d := filepath.Join(dir, "1", "rank."+strconv.Itoa(rank))
		if err := os.MkdirAll(d, 0o755); err != nil {
			closeOutputFiles(files)
			return nil, fmt.Errorf("--output-filename: creating %s: %w", d, err)
		}
		var pair [2]*os.File
		for _, kind := range []streamKind{stdoutStream, stderrStream} {
			fh, err := os.OpenFile(filepath.Join(d, kind.String()), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				closeOutputFiles(append(files, pair))
				return nil, fmt.Errorf("--output-filename: %w", err)
			}
			pair[kind] = fh
		}
		files = append(files, pair)
	}
	return files, nil
}

func closeOutputFiles(files [][2]*os.File) {
	for _, pair := range files {
		for _, fh := range pair {
			if fh != nil {
				fh.Close()
			}
		}
	}
}
