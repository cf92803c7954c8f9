package launcher

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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
// messages, onto gompirun's stdout and stderr. One lock covers both
// streams, since they are often the same terminal.
type terminal struct {
	mu      sync.Mutex
	out     [2]io.Writer
	midLine [2]bool // the last write to the stream did not end a line
	owner   [2]int  // who wrote it: rank+1, or 0 for gompirun itself
}

func newTerminal(stdout, stderr io.Writer) *terminal {
	return &terminal{out: [2]io.Writer{stdout, stderr}}
}

// write writes b with one Write call. If the previous write left a line
// unfinished (a rank's last line without newline), a newline goes first,
// so that text and the next line never run together; otherwise the bytes
// are forwarded exactly. Errors are ignored: a closed terminal must not
// stop the job.
func (t *terminal) write(kind streamKind, b []byte) { t.writeFrom(kind, -1, b) }

// writeFrom is write for a rank's output (rank -1: gompirun's own). The
// rest of a long line from the rank that left it unfinished goes on
// without a newline: untagged output stays byte for byte.
func (t *terminal) writeFrom(kind streamKind, rank int, b []byte) {
	if len(b) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.midLine[kind] && (rank < 0 || t.owner[kind] != rank+1) {
		b = append([]byte{'\n'}, b...)
	}
	_, _ = t.out[kind].Write(b)
	t.midLine[kind] = b[len(b)-1] != '\n'
	t.owner[kind] = rank + 1
}

// stderr returns a writer for gompirun's own messages (and its logger);
// each Write lands between the ranks' lines, never inside one.
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
