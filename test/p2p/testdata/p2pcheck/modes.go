package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

func init() {
	scenarios["sendmodes"] = sendModes
	scenarios["rsendearly"] = rsendEarly
	scenarios["bsendroom"] = bsendRoom
	scenarios["bsendalone"] = bsendAlone
	scenarios["isendalone"] = isendAlone
	scenarios["persistent"] = persistentRing
	scenarios["reqfree"] = reqFree
	scenarios["sendrecvring"] = sendrecvRing
	scenarios["mixedsome"] = mixedSome
	scenarios["startallocs"] = startAllocs
}

// modeSizes are an eager and a rendezvous size over every transport.
var modeSizes = []int{40, 300 << 10}

// sendModes: rank 0 sends two messages in each mode to rank 1, which
// receives the second first: the first waits unmatched meanwhile (a
// synchronous send's completes only once matched). Then ready sends, each
// after rank 1 said its receive is posted.
func sendModes(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	if w.Rank() == 0 {
		if err := mpi.BufferAttach(make([]byte, 4*(modeSizes[1]+mpi.BsendOverhead))); err != nil {
			return err
		}
	}
	modes := []string{"send", "isend", "issend", "bsend", "ibsend", "rsend", "irsend"}
	for mi, mode := range modes {
		for _, size := range modeSizes {
			id := uint64(mi*1000 + size)
			switch w.Rank() {
			case 0:
				first, second := make([]byte, size), make([]byte, size)
				pattern(first, id)
				pattern(second, id+1)
				if strings.HasPrefix(mode, "r") || strings.HasPrefix(mode, "ir") {
					if err := readySends(w, mode, first, second); err != nil {
						return fmt.Errorf("%s of %d bytes: %w", mode, size, err)
					}
					continue
				}
				if err := twoSends(w, mode, first, second); err != nil {
					return fmt.Errorf("%s of %d bytes: %w", mode, size, err)
				}
			case 1:
				buf := make([]byte, size)
				if strings.HasPrefix(mode, "r") || strings.HasPrefix(mode, "ir") {
					r1, _ := mpi.Irecv(buf, 0, 1, w)
					buf2 := make([]byte, size)
					r2, _ := mpi.Irecv(buf2, 0, 2, w)
					if err := mpi.Send([]byte{}, 0, 9, w); err != nil { // the receives are posted
						return err
					}
					if err := mpi.WaitAll(r1, r2); err != nil {
						return fmt.Errorf("%s of %d bytes: %w", mode, size, err)
					}
					if err := errors.Join(checkPattern(buf, id), checkPattern(buf2, id+1)); err != nil {
						return fmt.Errorf("%s: %w", mode, err)
					}
					continue
				}
				if _, err := mpi.Recv(buf, 0, 2, w); err != nil {
					return fmt.Errorf("%s of %d bytes, second: %w", mode, size, err)
				}
				if err := checkPattern(buf, id+1); err != nil {
					return fmt.Errorf("%s, second: %w", mode, err)
				}
				if _, err := mpi.Recv(buf, 0, 1, w); err != nil {
					return fmt.Errorf("%s of %d bytes, first: %w", mode, size, err)
				}
				if err := checkPattern(buf, id); err != nil {
					return fmt.Errorf("%s, first: %w", mode, err)
				}
			}
		}
	}
	if w.Rank() == 0 {
		_, err := mpi.BufferDetach()
		return err
	}
	return nil
}

// twoSends sends first with tag 1 and second with tag 2 in mode; the
// receiver takes tag 2 first.
func twoSends(w mpi.Comm, mode string, first, second []byte) error {
	var r mpi.Request
	var err error
	switch mode {
	case "send", "isend":
		r, err = mpi.Isend(first, 1, 1, w)
	case "issend":
		r, err = mpi.Issend(first, 1, 1, w)
	case "bsend":
		err = mpi.Bsend(first, 1, 1, w)
	case "ibsend":
		r, err = mpi.Ibsend(first, 1, 1, w)
	}
	if err != nil {
		return err
	}
	switch mode {
	case "send", "issend":
		err = mpi.Send(second, 1, 2, w)
	case "isend":
		var r2 mpi.Request
		if r2, err = mpi.Isend(second, 1, 2, w); err == nil {
			_, err = r2.Wait()
		}
	case "bsend", "ibsend":
		err = mpi.Bsend(second, 1, 2, w)
	}
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// readySends sends first and second in ready mode once the receiver says
// both receives are posted.
func readySends(w mpi.Comm, mode string, first, second []byte) error {
	if _, err := mpi.Recv([]byte{}, 1, 9, w); err != nil {
		return err
	}
	if mode == "rsend" {
		return errors.Join(mpi.Rsend(first, 1, 1, w), mpi.Rsend(second, 1, 2, w))
	}
	r1, err1 := mpi.Irsend(first, 1, 1, w)
	r2, err2 := mpi.Irsend(second, 1, 2, w)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	return mpi.WaitAll(r1, r2)
}

// rsendEarly: a ready send with no receive posted is reported at the
// receiver, whose later receive (Recv, or Mrecv after Mprobe) still gets
// the message. Rank 0 sends it, then a plain message; messages from one
// sender arrive in order, so once rank 1 has the plain one, the ready one
// is waiting unmatched.
func rsendEarly(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	for i := range 2 * len(modeSizes) {
		size, matched := modeSizes[i/2], i%2 == 1 // each size by Recv, then by Mprobe and Mrecv
		tag := 10 + i
		switch w.Rank() {
		case 0:
			buf := make([]byte, size)
			pattern(buf, uint64(size))
			r, err := mpi.Irsend(buf, 1, tag, w)
			if err != nil {
				return err
			}
			if err := mpi.Send([]byte{1}, 1, 99, w); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return fmt.Errorf("the early ready send of %d bytes: %w", size, err)
			}
		case 1:
			if _, err := mpi.Recv(make([]byte, 1), 0, 99, w); err != nil {
				return err
			}
			buf := make([]byte, size)
			var st mpi.Status
			var err error
			if matched {
				var m mpi.Message
				if m, _, err = mpi.Mprobe(0, tag, w); err != nil {
					return err
				}
				st, err = mpi.Mrecv(buf, &m)
			} else {
				st, err = mpi.Recv(buf, 0, tag, w)
			}
			want := fmt.Sprintf("ready send from rank 0, tag %d arrived before its receive was posted", tag)
			if !errors.Is(err, mpi.ErrOther) || err == nil || !strings.Contains(err.Error(), want) {
				return fmt.Errorf("receive of an early ready send of %d bytes (matched probe %v): %v; want ErrOther saying %q", size, matched, err, want)
			}
			if mpi.GetCount[byte](st) != size || st.Source != 0 || st.Tag != tag {
				return fmt.Errorf("early ready send's status %+v", st)
			}
			if err := checkPattern(buf, uint64(size)); err != nil {
				return err
			}
		}
	}
	return nil
}

// bsendRoom: buffered rendezvous messages fill the attached buffer until
// one does not fit (ErrBuffer); those in it arrive, in order, once the
// receiver posts its receives, and BufferFlush waits for that; then many
// small ones, within the room, arrive in order too. Then BufferAutomatic
// on the communicator holds more than the buffer did, with no receive
// posted.
func bsendRoom(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	const big, fit, small, many = 256 << 10, 3, 100, 200
	switch w.Rank() {
	case 0:
		if err := mpi.BufferAttach(make([]byte, fit*(big+mpi.BsendOverhead))); err != nil {
			return err
		}
		msg := make([]byte, big)
		for i := range fit {
			pattern(msg, uint64(i))
			if err := mpi.Bsend(msg, 1, 1, w); err != nil {
				return fmt.Errorf("bsend %d within the room: %w", i, err)
			}
		}
		err := mpi.Bsend(msg, 1, 1, w)
		if !errors.Is(err, mpi.ErrBuffer) || !strings.Contains(err.Error(), fmt.Sprintf("needs %d bytes", big+mpi.BsendOverhead)) {
			return fmt.Errorf("bsend beyond the room: %v, want ErrBuffer naming the bytes needed", err)
		}
		if err := mpi.Send([]byte{1}, 1, 99, w); err != nil {
			return err
		}
		if err := mpi.BufferFlush(); err != nil { // the room is free again once they have gone
			return err
		}
		for i := range many {
			m := make([]byte, small)
			pattern(m, uint64(100+i))
			if err := mpi.Bsend(m, 1, 2, w); err != nil {
				return fmt.Errorf("small bsend %d: %w", i, err)
			}
		}
		if _, err = mpi.BufferDetach(); err != nil {
			return err
		}
		if err := mpi.BufferAttach([]byte{}); !errors.Is(err, mpi.ErrBuffer) || !strings.Contains(err.Error(), "BufferAutomatic") {
			return fmt.Errorf("attaching an empty buffer: %v, want ErrBuffer naming BufferAutomatic", err)
		}
		if err := w.AttachBuffer(mpi.BufferAutomatic); err != nil {
			return err
		}
		for i := range 2 * fit {
			pattern(msg, uint64(200+i))
			if err := mpi.Bsend(msg, 1, 3, w); err != nil {
				return fmt.Errorf("bsend %d into BufferAutomatic: %w", i, err)
			}
		}
		if err := mpi.Send([]byte{1}, 1, 98, w); err != nil {
			return err
		}
		back, err := w.DetachBuffer()
		if err != nil {
			return err
		}
		if cap(back) == 0 || &back[:1][0] != &mpi.BufferAutomatic[:1][0] {
			return fmt.Errorf("detaching BufferAutomatic returned %d bytes of another buffer", len(back))
		}
		return nil
	case 1:
		if _, err := mpi.Recv(make([]byte, 1), 0, 99, w); err != nil {
			return err
		}
		buf := make([]byte, big)
		for i := range fit {
			if _, err := mpi.Recv(buf, 0, 1, w); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return fmt.Errorf("buffered message %d: %w", i, err)
			}
		}
		buf = make([]byte, small)
		for i := range many {
			if _, err := mpi.Recv(buf, 0, 2, w); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(100+i)); err != nil {
				return fmt.Errorf("small buffered message %d: %w", i, err)
			}
		}
		if _, err := mpi.Recv(make([]byte, 1), 0, 98, w); err != nil {
			return err
		}
		buf = make([]byte, big)
		for i := range 2 * fit {
			if _, err := mpi.Recv(buf, 0, 3, w); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(200+i)); err != nil {
				return fmt.Errorf("message %d from BufferAutomatic: %w", i, err)
			}
		}
	}
	return nil
}

// bsendAlone: rank 0 buffers rendezvous messages and makes no MPI call
// until rank 1 has them all: it waits on a file that rank 1 writes. The
// messages must go on their own.
func bsendAlone(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	const size, n = 256 << 10, 2
	flag := filepath.Join(os.TempDir(), "p2pcheck-bsendalone-"+pmpi.JobID())
	switch w.Rank() {
	case 0:
		if err := mpi.BufferAttach(make([]byte, n*(size+mpi.BsendOverhead))); err != nil {
			return err
		}
		msg := make([]byte, size)
		for i := range n {
			pattern(msg, uint64(i))
			if err := mpi.Bsend(msg, 1, 1, w); err != nil {
				return err
			}
		}
		for {
			if _, err := os.Stat(flag); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_, err := mpi.BufferDetach()
		return errors.Join(err, os.Remove(flag))
	case 1:
		buf := make([]byte, size)
		for i := range n {
			if _, err := mpi.Recv(buf, 0, 1, w); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return err
			}
		}
		return os.WriteFile(flag, nil, 0o600)
	}
	return nil
}

// isendAlone: rank 1 stays out of MPI, waiting on a file, while rank 0
// makes buffered sends to it, then starts non-blocking ones, eager and
// rendezvous, far more than its ring holds, and cancels the last one:
// they must all return at once, since rank 0 writes the file only then.
// A blocking send after them must arrive after them, and the cancelled
// one never.
func isendAlone(w mpi.Comm) error {
	const n, tag, cancelTag = 60, 1, 9
	// The eager ones fill rank 1's ring (256 KiB) twice over; a rendezvous
	// one adds its first fragment, or only its RTS with single copy.
	sizes := []int{20000, 100, 200000, 30000, 0}
	flag := filepath.Join(os.TempDir(), "p2pcheck-isendalone-"+pmpi.JobID())
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	const nb, bsize, btag = 20, 20000, 2 // the buffered ones fill the ring alone
	switch w.Rank() {
	case 0:
		if err := mpi.BufferAttach(make([]byte, nb*(bsize+mpi.BsendOverhead))); err != nil {
			return err
		}
		for i := range nb {
			msg := make([]byte, bsize)
			pattern(msg, uint64(1000+i))
			if err := mpi.Bsend(msg, 1, btag, w); err != nil {
				return err
			}
		}
		reqs := make([]mpi.Request, 0, n)
		for i := range n {
			msg := make([]byte, sizes[i%len(sizes)])
			pattern(msg, uint64(i))
			r, err := mpi.Isend(msg, 1, tag, w)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		c, err := mpi.Isend(make([]byte, 20000), 1, cancelTag, w)
		if err != nil {
			return err
		}
		if err := c.Cancel(); err != nil {
			return err
		}
		if err := os.WriteFile(flag, nil, 0o600); err != nil {
			return err
		}
		last := make([]byte, 3000)
		pattern(last, n)
		if err := mpi.Send(last, 1, tag, w); err != nil {
			return err
		}
		if err := mpi.WaitAll(reqs...); err != nil {
			return err
		}
		if st, err := c.Wait(); err != nil || !st.Cancelled {
			return fmt.Errorf("the send cancelled before rank 1 received anything: cancelled %v, error %v", st.Cancelled, err)
		}
		if _, err := mpi.BufferDetach(); err != nil {
			return err
		}
	case 1:
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) { // a hang guard
			if _, err := os.Stat(flag); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return errors.New("rank 0's buffered and non-blocking sends did not return while this rank stayed out of MPI")
			}
		}
		if err := os.Remove(flag); err != nil {
			return err
		}
		buf := make([]byte, 200000)
		for i := range n + 1 {
			st, err := mpi.Recv(buf, 0, tag, w)
			if err != nil {
				return err
			}
			want := 3000
			if i < n {
				want = sizes[i%len(sizes)]
			}
			if st.Count != want {
				return fmt.Errorf("message %d: %d bytes, want %d", i, st.Count, want)
			}
			if err := checkPattern(buf[:want], uint64(i)); err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
		}
		for i := range nb {
			if _, err := mpi.Recv(buf[:bsize], 0, btag, w); err != nil {
				return err
			}
			if err := checkPattern(buf[:bsize], uint64(1000+i)); err != nil {
				return fmt.Errorf("buffered message %d: %w", i, err)
			}
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 1 {
		if _, found, err := mpi.Iprobe(0, cancelTag, w); err != nil || found {
			return fmt.Errorf("the cancelled send: found %v, error %v", found, err)
		}
	}
	return nil
}

// persistentRing: each rank sends to its right neighbour and receives
// from its left one with persistent requests, restarted many times with
// fresh data each time, in each send mode that needs no coordination.
func persistentRing(w mpi.Comm) error {
	n, me := w.Size(), w.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	if err := mpi.BufferAttach(make([]byte, modeSizes[1]+mpi.BsendOverhead)); err != nil {
		return err
	}
	for _, size := range modeSizes {
		out, in := make([]byte, size), make([]byte, size)
		for _, mode := range []string{"send", "ssend", "bsend"} {
			var s mpi.Request
			var err error
			switch mode {
			case "send":
				s, err = mpi.SendInit(out, right, 3, w)
			case "ssend":
				s, err = mpi.SsendInit(out, right, 3, w)
			case "bsend":
				s, err = mpi.BsendInit(out, right, 3, w)
			}
			if err != nil {
				return err
			}
			r, err := mpi.RecvInit(in, left, 3, w)
			if err != nil {
				return err
			}
			for round := range 30 {
				pattern(out, uint64(me*1000+round))
				if err := mpi.Startall(r, s); err != nil {
					return err
				}
				if err := mpi.WaitAll(r, s); err != nil {
					return fmt.Errorf("%s of %d bytes, round %d: %w", mode, size, round, err)
				}
				if err := checkPattern(in, uint64(left*1000+round)); err != nil {
					return fmt.Errorf("%s, round %d: %w", mode, round, err)
				}
				if s.Active() || r.Active() {
					return fmt.Errorf("%s: persistent requests active after WaitAll", mode)
				}
				if mode == "bsend" {
					// The buffered copy may still wait for its receiver.
					if err := mpi.BufferFlush(); err != nil {
						return err
					}
				}
			}
			if err := errors.Join(s.Free(), r.Free()); err != nil {
				return err
			}
			if err := s.Start(); !errors.Is(err, mpi.ErrRequest) {
				return fmt.Errorf("Start after Free: %v, want ErrRequest", err)
			}
		}
	}
	_, err := mpi.BufferDetach()
	return err
}

// reqFree: rank 0 frees its sends' requests while they are active (a
// rendezvous one certainly is: rank 1 has not posted its receive), and a
// persistent one too; the messages still arrive.
func reqFree(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	switch w.Rank() {
	case 0:
		for i, size := range modeSizes {
			buf := make([]byte, size)
			pattern(buf, uint64(i))
			r, err := mpi.Isend(buf, 1, 1, w)
			if err != nil {
				return err
			}
			if err := r.Free(); err != nil {
				return err
			}
			if err := r.Free(); !errors.Is(err, mpi.ErrRequest) {
				return fmt.Errorf("Free twice: %v, want ErrRequest", err)
			}
			p, err := mpi.SendInit(buf, 1, 2, w)
			if err != nil {
				return err
			}
			if err := errors.Join(p.Start(), p.Free()); err != nil {
				return err
			}
		}
		return mpi.Send([]byte{1}, 1, 99, w)
	case 1:
		if _, err := mpi.Recv(make([]byte, 1), 0, 99, w); err != nil {
			return err
		}
		for i, size := range modeSizes {
			buf := make([]byte, size)
			for _, tag := range []int{1, 2} {
				if _, err := mpi.Recv(buf, 0, tag, w); err != nil {
					return err
				}
				if err := checkPattern(buf, uint64(i)); err != nil {
					return fmt.Errorf("message of a freed request, tag %d: %w", tag, err)
				}
			}
		}
	}
	return nil
}

// sendrecvRing: Isendrecv, IsendrecvReplace and SendrecvReplace around a
// ring.
func sendrecvRing(w mpi.Comm) error {
	n, me := w.Size(), w.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	for _, size := range modeSizes {
		out, in := make([]byte, size), make([]byte, size)
		pattern(out, uint64(me))
		r, err := mpi.Isendrecv(out, right, 1, in, left, 1, w)
		if err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil || st.Source != left || mpi.GetCount[byte](st) != size {
			return fmt.Errorf("Isendrecv of %d bytes: %+v, %v", size, st, err)
		}
		if err := checkPattern(in, uint64(left)); err != nil {
			return fmt.Errorf("Isendrecv: %w", err)
		}
		r, err = mpi.IsendrecvReplace(in, right, 2, left, 2, w)
		if err != nil {
			return err
		}
		if _, err := r.Wait(); err != nil {
			return err
		}
		if err := checkPattern(in, uint64((left+n-1)%n)); err != nil {
			return fmt.Errorf("IsendrecvReplace: %w", err)
		}
		if _, err := mpi.SendrecvReplace(in, right, 3, left, 3, w); err != nil {
			return err
		}
		if err := checkPattern(in, uint64((left+2*n-2)%n)); err != nil {
			return fmt.Errorf("SendrecvReplace: %w", err)
		}
	}
	return nil
}

// mixedSome: WaitSome and TestSome over zero, inactive persistent, and
// active requests: the inactive ones are ignored, and all inactive gives
// Undefined.
func mixedSome(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	peer := 1 - w.Rank()
	const n = 6
	ins := make([][]byte, n)
	idle, err := mpi.RecvInit(make([]byte, 1), peer, 77, w)
	if err != nil {
		return err
	}
	reqs := []mpi.Request{{}, idle}
	for i := range n {
		ins[i] = make([]byte, modeSizes[i%2])
		r, err := mpi.Irecv(ins[i], peer, 10+i, w)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	var sends []mpi.Request
	for i := range n {
		out := make([]byte, modeSizes[(n-1-i)%2]) // the size of the receive it matches
		pattern(out, uint64(w.Rank()*100+i))
		s, err := mpi.Isend(out, peer, 10+n-1-i, w) // the last receive's message first
		if err != nil {
			return err
		}
		sends = append(sends, s)
	}
	got := 0
	idx, sts := make([]int, len(reqs)), make([]mpi.Status, len(reqs))
	for round := 0; got < n; round++ {
		var done []int
		if round%2 == 0 {
			k, err := mpi.TestSome(reqs, idx, sts)
			if err != nil || k == mpi.Undefined {
				return fmt.Errorf("TestSome: %d, %v", k, err)
			}
			done = idx[:k]
		} else {
			k, err := mpi.WaitSome(reqs, idx, sts)
			if err != nil || k < 1 {
				return fmt.Errorf("WaitSome: %d, %v", k, err)
			}
			done = idx[:k]
		}
		for _, i := range done {
			if i < 2 {
				return fmt.Errorf("a zero or inactive request (index %d) was completed", i)
			}
			if err := checkPattern(ins[i-2], uint64(peer*100+n-1-(i-2))); err != nil {
				return err
			}
			got++
		}
	}
	if k, err := mpi.TestSome(reqs, idx, sts); k != mpi.Undefined || err != nil {
		return fmt.Errorf("TestSome over zero and inactive requests: %d, %v; want Undefined", k, err)
	}
	if k, err := mpi.WaitSome(reqs, idx, sts); k != mpi.Undefined || err != nil {
		return fmt.Errorf("WaitSome over zero and inactive requests: %d, %v; want Undefined", k, err)
	}
	if !reqs[1].Active() && reqs[1] != idle {
		return errors.New("WaitSome replaced the inactive persistent request")
	}
	if err := mpi.WaitAll(sends...); err != nil {
		return err
	}
	return idle.Free()
}

// startAllocs: ranks 0 and 1 exchange messages through persistent
// requests; a round of Startall and WaitAll allocates nothing for an
// eager message, and no more than a round of Irecv, Isend and WaitAll
// for a rendezvous one (the engine's rendezvous over tcp allocates, for
// either).
func startAllocs(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	peer := 1 - w.Rank()
	for _, size := range modeSizes {
		out, in := make([]byte, size), make([]byte, size)
		s, err := mpi.SendInit(out, peer, 5, w)
		if err != nil {
			return err
		}
		r, err := mpi.RecvInit(in, peer, 5, w)
		if err != nil {
			return err
		}
		reqs := []mpi.Request{r, s}
		var failed error
		persistent := testing.AllocsPerRun(1000, func() {
			failed = errors.Join(failed, mpi.Startall(reqs...), mpi.WaitAll(reqs...))
		})
		plain := testing.AllocsPerRun(1000, func() {
			var err1, err2 error
			reqs[0], err1 = mpi.Irecv(in, peer, 5, w)
			reqs[1], err2 = mpi.Isend(out, peer, 5, w)
			failed = errors.Join(failed, err1, err2, mpi.WaitAll(reqs...))
		})
		if failed != nil {
			return failed
		}
		fmt.Printf("rank %d: %d-byte exchange: %v allocations per round with persistent requests, %v with Irecv and Isend\n",
			w.Rank(), size, persistent, plain)
		if persistent > plain || (size <= modeSizes[0] && persistent != 0) {
			return fmt.Errorf("a round of Startall and WaitAll of %d bytes allocates %v times (Irecv and Isend: %v)", size, persistent, plain)
		}
		if err := errors.Join(s.Free(), r.Free()); err != nil {
			return err
		}
	}
	return nil
}
