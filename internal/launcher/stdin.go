package launcher

import (
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/node"
)

// Rank 0 reads gompirun's stdin wherever it runs. On this host it gets the
// file itself (stdinForRank0); on another, gompirun reads the file and
// sends it in stdin frames to the daemon that runs rank 0, which writes
// them into a pipe that is rank 0's stdin (see node.Frame).
//
// The cost is per frame (an acknowledgement, a copy on each side): 256 MiB
// to a rank 0 on another simulated host took 0.55 of the time in frames of
// 256 KiB, 4 in flight, as in frames of 32 KiB, 8 in flight, and 0.8 of
// it as in frames of 128 KiB, 8 in flight.
const stdinChunk = 256 << 10 // bytes in a stdin frame at most

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
func stdinFeedFor(forward bool, ranks []node.DaemonRank) *stdinFeed {
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
func forwardStdin(in io.Reader, wire *node.FrameWriter, feed *stdinFeed, gone <-chan struct{}) {
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
			if wire.Write(node.Frame{Kind: node.FrameStdin, Payload: buf[:n]}) != nil {
				return // the daemon's input is closed: the job is over
			}
		}
		if err != nil {
			_ = wire.Write(node.Frame{Kind: node.FrameStdinEOF})
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
	f := &stdinFeed{credit: make(chan struct{}, node.StdinWindow), closed: make(chan struct{})}
	for range node.StdinWindow {
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
func (h *remoteHost) stdinAcked(f node.Frame) {
	if h.stdin != nil {
		h.stdin.acked(f.Arg == 1)
	}
}
