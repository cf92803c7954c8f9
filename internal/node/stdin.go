package node

import "os"

// StdinWindow is how many stdin frames gompirun may send a daemon before
// the first is acknowledged: a rank 0 that reads slowly holds gompirun's
// reading back instead of filling the daemon's memory.
const StdinWindow = 4

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
	s := &stdinSink{chunks: make(chan []byte, StdinWindow+1), w: w, ack: ack}
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
// rank 0 did not start here. Only route calls it, once the ranks started.
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
	d.report(Frame{Kind: FrameStdinAck, Arg: arg})
}
