package launcher

import (
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Rank 0 reads gompirun's stdin wherever it runs. On this host it gets the
// file itself (stdinForRank0); on another, gompirun reads the file and
// sends it in stdin frames to the daemon that runs rank 0, which writes
// them into a pipe that is rank 0's stdin (see daemonwire.go).
//
// The cost is per frame (an acknowledgement, a copy on each side): 256 MiB
// to a rank 0 on another simulated host took 0.55 of the time in frames of
// 256 KiB, 4 in flight, as in frames of 32 KiB, 8 in flight, and 0.8 of
// it as in frames of 128 KiB, 8 in flight.
const (
	stdinChunk  = 256 << 10 // bytes in a stdin frame at most
	stdinWindow = 4         // stdin frames gompirun may send before the first is acknowledged
)

// rank0Stdin is the file whose contents rank 0 reads, nil for /dev/null:
// when there is no stdin, it is unusable, or it is a terminal whose
// foreground gompirun is not in (reading it would stop gompirun with
// SIGTTIN). terminal reports a terminal, which rank 0, in its own process
// group, cannot read itself.
func (j *job) rank0Stdin() (in *os.File, terminal bool) {
	in = j.cfg.Stdin
	if in == nil {
		return nil, false
	}
	if _, err := in.Stat(); err != nil {
		j.log.Debug("stdin is not usable; rank 0 reads /dev/null", "error", err)
		return nil, false
	}
	fd := int(in.Fd())
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return in, false
	}
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || pgrp != unix.Getpgrp() {
		j.log.Debug("gompirun runs in the background; rank 0 reads /dev/null")
		return nil, false
	}
	return in, true
}

// forwardsStdin reports whether gompirun sends its stdin to the daemon
// of rank 0: rank 0 runs on another host and would read something other
// than /dev/null here. /dev/null itself is not forwarded, so that rank 0
// reads /dev/null there too.
func (j *job) forwardsStdin() bool {
	if j.cfg.Hosts == nil || j.cfg.Hosts[0] == j.cfg.LocalHost {
		return false
	}
	in, _ := j.rank0Stdin()
	if in == nil {
		return false
	}
	st, err := in.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// startStdin forwards gompirun's stdin to the daemon of rank 0 if it
// expects it (see stdinFeedFor), once the ranks are started.
func (j *job) startStdin() {
	j.mu.Lock()
	h := j.remote[0]
	j.mu.Unlock()
	if h == nil || h.stdin == nil {
		return
	}
	var r io.Reader = strings.NewReader("") // gone to the background since the launch: the end at once
	if in, _ := j.rank0Stdin(); in != nil {
		r = in
	}
	go forwardStdin(r, h.wire, h.stdin, h.done)
}

// stdinFeedFor is the stdin credit of a daemon that runs ranks: nil unless
// rank 0 is among them and gompirun forwards its stdin (DaemonSpec.Stdin).
func stdinFeedFor(forward bool, ranks []DaemonRank) *stdinFeed {
	for _, r := range ranks {
		if forward && r.Rank == 0 {
			return newStdinFeed()
		}
	}
	return nil
}

// forwardStdin sends in to a daemon as stdin frames, then its end: the
// end of in, or an error reading it, is the end of rank 0's stdin. It
// stops early, without a word, when the daemon says that rank 0's stdin
// is closed (rank 0 closed it or exited), or the daemon is gone.
func forwardStdin(in io.Reader, wire *frameWriter, feed *stdinFeed, gone <-chan struct{}) {
	buf := make([]byte, stdinChunk)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			select {
			case <-feed.credit:
			case <-feed.closed:
				return
			case <-gone:
				return
			}
			if wire.write(frame{kind: frameStdin, payload: buf[:n]}) != nil {
				return // the daemon's input is closed: the job is over
			}
		}
		if err != nil {
			_ = wire.write(frame{kind: frameStdinEOF})
			return
		}
	}
}

// stdinFeed is gompirun's credit for stdin frames to one daemon.
type stdinFeed struct {
	credit chan struct{} // a token for each frame gompirun may send
	closed chan struct{} // closed once rank 0's stdin is
	once   sync.Once
}

func newStdinFeed() *stdinFeed {
	f := &stdinFeed{credit: make(chan struct{}, stdinWindow), closed: make(chan struct{})}
	for range stdinWindow {
		f.credit <- struct{}{}
	}
	return f
}

// acked takes a stdin-ack: one frame more may be sent, or none since
// rank 0's stdin is closed.
func (f *stdinFeed) acked(closed bool) {
	if closed {
		f.once.Do(func() { close(f.closed) })
	}
	select {
	case f.credit <- struct{}{}:
	default: // a daemon acknowledging more than it got; the window stays bounded
	}
}

// stdinAcked passes the daemon's stdin-ack to the feed.
func (h *remoteHost) stdinAcked(f frame) {
	if h.stdin != nil {
		h.stdin.acked(f.arg == 1)
	}
}

// stdinSink writes gompirun's stdin frames into rank 0's stdin on a
// daemon, in order, on a goroutine of its own: a rank 0 that does not
// read holds up only its own input.
type stdinSink struct {
	chunks chan []byte // nil: the end of stdin
	w      *os.File    // rank 0's stdin; nil once closed
	ack    func(closed bool)
}

// newStdinSink starts writing into w (nil: rank 0 is not running here,
// and what comes is thrown away); ack acknowledges each chunk.
func newStdinSink(w *os.File, ack func(closed bool)) *stdinSink {
	// Room for a full window and the end: push never blocks while
	// gompirun keeps to its credit.
	s := &stdinSink{chunks: make(chan []byte, stdinWindow+1), w: w, ack: ack}
	go s.run()
	return s
}

// push queues a chunk of stdin, or its end for nil.
func (s *stdinSink) push(b []byte) { s.chunks <- b }

func (s *stdinSink) run() {
	for b := range s.chunks {
		if b == nil {
			s.close()
			return
		}
		if s.w != nil {
			if _, err := s.w.Write(b); err != nil {
				s.close() // rank 0 exited or closed its stdin: the rest has no reader
			}
		}
		s.ack(s.w == nil)
	}
}

func (s *stdinSink) close() {
	if s.w != nil {
		s.w.Close()
		s.w = nil
	}
}

// stdinSink is rank 0's stdin sink; one that throws the bytes away when
// rank 0 did not start here. Only serve calls it, once the ranks started.
func (d *daemon) stdinSink() *stdinSink {
	if d.stdin == nil {
		d.stdin = newStdinSink(nil, d.ackStdin)
	}
	return d.stdin
}

// ackStdin acknowledges a stdin frame to gompirun.
func (d *daemon) ackStdin(closed bool) {
	var arg uint32
	if closed {
		arg = 1
	}
	d.report(frame{kind: frameStdinAck, arg: arg})
}
