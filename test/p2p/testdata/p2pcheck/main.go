// Command p2pcheck runs one point-to-point scenario on every rank of a
// gompirun job and prints "ok <scenario> rank <r>" when the rank's checks
// pass; a failed check prints FAIL and exits 1. The tests in test/p2p run it.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

var scenarios = map[string]func(mpi.Comm) error{
	"order":     order,
	"anysource": anySource,
	"truncate":  truncate,
	"probe":     probe,
	"cancel":    cancel,
	"ssend":     ssend,
	"random":    random,
	"big":       big,
	"self":      self,
	"huge":      huge,
	"crash":     crash,
	"hang":      hang,
	"pingpong":  pingpong,
	"errors":    badArgs,
	"fatal":     fatal,
	"pairs":     pairs,
	"bidir":     bidir,
	"window":    window,
	"complete":  complete,
	"eager":     eager,
	"abort":     abort,
}

func main() {
	if len(os.Args) < 2 || scenarios[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: p2pcheck SCENARIO (one of %s)\n", strings.Join(names(), ", "))
		os.Exit(2)
	}
	name := os.Args[1]
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL init:", err)
		os.Exit(1)
	}
	world := mpi.CommWorld()
	if err := scenarios[name](world); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL %s rank %d: %v\n", name, world.Rank(), err)
		os.Exit(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL finalize rank %d: %v\n", world.Rank(), err)
		os.Exit(1)
	}
	fmt.Printf("ok %s rank %d\n", name, world.Rank())
}

func names() []string {
	var n []string
	for k := range scenarios {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// pattern fills a message deterministically from its id, so the receiver
// can check it without being sent the expected bytes.
func pattern(buf []byte, id uint64) {
	x := id*0x9E3779B97F4A7C15 + 1
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
}

func checkPattern(buf []byte, id uint64) error {
	want := make([]byte, len(buf))
	pattern(want, id)
	if crc32.ChecksumIEEE(buf) != crc32.ChecksumIEEE(want) {
		return fmt.Errorf("message %d: checksum mismatch over %d bytes", id, len(buf))
	}
	return nil
}

// order: every other rank sends 300 messages of mixed eager and rendezvous
// sizes with one tag to rank 0, which must see each sender's in order.
func order(w mpi.Comm) error {
	const n = 300
	sizes := []int{8, 200_000, 0, 70_000, 1024}
	if w.Rank() != 0 {
		var reqs []mpi.Request
		for i := range n {
			buf := make([]int64, sizes[i%len(sizes)]/8+1)
			buf[0] = int64(i)
			r, err := mpi.Isend(buf, 0, 5, w)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		return mpi.WaitAll(reqs...)
	}
	buf := make([]int64, 200_000/8+1)
	for src := 1; src < w.Size(); src++ {
		for i := range n {
			if _, err := mpi.Recv(buf, src, 5, w); err != nil {
				return err
			}
			if buf[0] != int64(i) {
				return fmt.Errorf("from rank %d: message %d arrived as number %d", src, buf[0], i)
			}
		}
	}
	return nil
}

// anySource: every other rank sends 100 numbered messages; rank 0 takes
// them with AnySource and AnyTag and checks per-sender order and counts.
func anySource(w mpi.Comm) error {
	const n = 100
	if w.Rank() != 0 {
		for i := range n {
			if err := mpi.Send([]int32{int32(w.Rank()), int32(i)}, 0, w.Rank(), w); err != nil {
				return err
			}
		}
		return nil
	}
	next := make([]int32, w.Size())
	buf := make([]int32, 2)
	for range n * (w.Size() - 1) {
		st, err := mpi.Recv(buf, mpi.AnySource, mpi.AnyTag, w)
		if err != nil {
			return err
		}
		if int(buf[0]) != st.Source || st.Tag != st.Source || st.Count != 2 {
			return fmt.Errorf("status %+v for a message from rank %d", st, buf[0])
		}
		if buf[1] != next[st.Source] {
			return fmt.Errorf("from rank %d: message %d arrived when %d was due", st.Source, buf[1], next[st.Source])
		}
		next[st.Source]++
	}
	return nil
}

// truncate: rank 0 sends 4096 and 1 MiB bytes; rank 1 receives each into
// 1024 bytes and must get ErrTruncate, the first 1024 bytes, and nothing
// written past them.
func truncate(w mpi.Comm) error {
	sizes := []int{4096, 1 << 20}
	for i, size := range sizes {
		switch w.Rank() {
		case 0:
			msg := make([]byte, size)
			pattern(msg, uint64(i))
			if err := mpi.Send(msg, 1, 7, w); err != nil {
				return fmt.Errorf("sender of a truncated message: %w", err)
			}
		case 1:
			backing := make([]byte, 1024+16)
			for j := range backing {
				backing[j] = 0xEE
			}
			st, err := mpi.Recv(backing[:1024], 0, 7, w)
			if !errors.Is(err, mpi.ErrTruncate) {
				return fmt.Errorf("size %d: err %v, want ErrTruncate", size, err)
			}
			want := fmt.Sprintf("recv from rank 0 of comm MPI_COMM_WORLD, tag 7: message of %d bytes truncated to 1024", size)
			if err.Error() != want || !errors.Is(st.Err, mpi.ErrTruncate) {
				return fmt.Errorf("error %q, want %q", err, want)
			}
			full := make([]byte, size)
			pattern(full, uint64(i))
			if !slices.Equal(backing[:1024], full[:1024]) {
				return fmt.Errorf("size %d: the received prefix differs", size)
			}
			for _, b := range backing[1024:] {
				if b != 0xEE {
					return fmt.Errorf("size %d: bytes written past the receive buffer", size)
				}
			}
		}
	}
	return nil
}

// probe: rank 0 sends messages of sizes rank 1 does not know; rank 1
// probes (Probe and Iprobe in turn), sizes its buffer with GetCount and
// receives.
func probe(w mpi.Comm) error {
	sizes := []int{0, 3, 5000, 300_000}
	for i, size := range sizes {
		switch w.Rank() {
		case 0:
			msg := make([]float64, size)
			for j := range msg {
				msg[j] = float64(i*j) + 0.5
			}
			if err := mpi.Send(msg, 1, 100+i, w); err != nil {
				return err
			}
		case 1:
			st, err := probeOrIprobe(w, i%2 == 1)
			if err != nil {
				return err
			}
			if st.Tag != 100+i || mpi.GetCount[float64](st) != size {
				return fmt.Errorf("probe: tag %d count %d, want tag %d count %d", st.Tag, mpi.GetCount[float64](st), 100+i, size)
			}
			// Count is what a call received, in its datatype: a probe, which
			// receives nothing and has no datatype, has none.
			if st.Count != mpi.Undefined {
				return fmt.Errorf("probe of %d float64s: Count %d, want Undefined", size, st.Count)
			}
			buf := make([]float64, mpi.GetCount[float64](st))
			st, err = mpi.Recv(buf, st.Source, st.Tag, w)
			if err != nil || st.Count != size || mpi.GetCount[float64](st) != size {
				return fmt.Errorf("recv after probe: %v, Count %d, GetCount %d, want %d", err, st.Count, mpi.GetCount[float64](st), size)
			}
			for j := range buf {
				if buf[j] != float64(i*j)+0.5 {
					return fmt.Errorf("element %d is %v", j, buf[j])
				}
			}
		}
	}
	if w.Rank() == 1 {
		if _, found, err := mpi.Iprobe(0, mpi.AnyTag, w); err != nil || found {
			return fmt.Errorf("iprobe found a message that was never sent (%v)", err)
		}
	}
	return nil
}

// cancel: a posted receive that nothing matches is cancelled, and a later
// message with the same tag goes to the next receive.
func cancel(w mpi.Comm) error {
	switch w.Rank() {
	case 1:
		r, err := mpi.Irecv(make([]byte, 8), 0, 99, w)
		if err != nil {
			return err
		}
		if err := r.Cancel(); err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("cancelled receive: status %+v err %v", st, err)
		}
		if err := mpi.Send([]byte{1}, 0, 1, w); err != nil { // tell rank 0 to send
			return err
		}
		buf := make([]byte, 1)
		if _, err := mpi.Recv(buf, 0, 99, w); err != nil || buf[0] != 42 {
			return fmt.Errorf("receive after the cancel: %v, got %d", err, buf[0])
		}
		// Rank 0 cancels a large send before this rank receives on its tag:
		// the next message on that tag is what arrives.
		if _, err := mpi.Recv(make([]byte, 1), 0, 2, w); err != nil {
			return err
		}
		big := make([]byte, 1<<20)
		if _, err := mpi.Recv(big, 0, 98, w); err != nil || big[0] != 7 {
			return fmt.Errorf("receive after a cancelled send: %v, first byte %d (the cancelled send had 6)", err, big[0])
		}
		return cancelEagerReceiver(w)
	case 0:
		if _, err := mpi.Recv(make([]byte, 1), 1, 1, w); err != nil {
			return err
		}
		if err := mpi.Send([]byte{42}, 1, 99, w); err != nil {
			return err
		}
		big := make([]byte, 1<<20) // rendezvous on every transport
		big[0] = 6
		r, err := mpi.Isend(big, 1, 98, w)
		if err != nil {
			return err
		}
		if err := r.Cancel(); err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("cancelled send: status %+v err %v", st, err)
		}
		if err := mpi.Send([]byte{1}, 1, 2, w); err != nil {
			return err
		}
		big[0] = 7
		if err := mpi.Send(big, 1, 98, w); err != nil {
			return err
		}
		return cancelEagerSender(w)
	}
	return nil
}

// cancelEagerSender is rank 0's half of cancel's eager part. Of two small
// messages with the same envelope, both unmatched at rank 1, it cancels the
// second: that one never arrives, the first does. It then cancels a small
// message that rank 1 has received, once rank 1 makes no call but
// Finalize: that one completes normally, with the answer from rank 1's
// Finalize. And it cancels a small message to itself.
func cancelEagerSender(w mpi.Comm) error {
	a, err := mpi.Isend([]byte("a"), 1, 97, w)
	if err != nil {
		return err
	}
	b, err := mpi.Isend([]byte("b"), 1, 97, w)
	if err != nil {
		return err
	}
	// Rank 1 answers from its Recv of tag 3, which waits for the word below.
	if err := cancelled(b, true, "an unmatched eager send"); err != nil {
		return err
	}
	if st, err := a.Wait(); err != nil || st.Cancelled {
		return fmt.Errorf("the eager send beside the cancelled one: status %+v err %v", st, err)
	}
	if err := mpi.Send([]byte{1}, 1, 3, w); err != nil {
		return err
	}
	if err := mpi.Send([]byte("c"), 1, 97, w); err != nil {
		return err
	}
	// Rank 1 has posted its receive of tag 96 when it sends on tag 4.
	if _, err := mpi.Recv(make([]byte, 1), 1, 4, w); err != nil {
		return err
	}
	d, err := mpi.Isend([]byte("d"), 1, 96, w)
	if err != nil {
		return err
	}
	// Rank 1 says it has d, then goes on to Finalize: the answer to the
	// cancel comes from there.
	if _, err := mpi.Recv(make([]byte, 1), 1, 5, w); err != nil {
		return err
	}
	if err := cancelled(d, false, "an eager send already matched"); err != nil {
		return err
	}
	s, err := mpi.Isend([]byte("s"), 0, 95, w)
	if err != nil {
		return err
	}
	if err := cancelled(s, true, "an eager send to itself"); err != nil {
		return err
	}
	if _, found, err := mpi.Iprobe(0, 95, w); err != nil || found {
		return fmt.Errorf("the cancelled message to itself is still there (%v)", err)
	}
	return nil
}

// cancelled cancels r, waits for it, and checks that its status says
// cancelled as want does.
func cancelled(r mpi.Request, want bool, what string) error {
	if err := r.Cancel(); err != nil {
		return fmt.Errorf("cancel of %s: %w", what, err)
	}
	if st, err := r.Wait(); err != nil || st.Cancelled != want {
		return fmt.Errorf("%s: status %+v err %v, want cancelled %v", what, st, err, want)
	}
	return nil
}

// cancelEagerReceiver is rank 1's half of cancel's eager part.
func cancelEagerReceiver(w mpi.Comm) error {
	if _, err := mpi.Recv(make([]byte, 1), 0, 3, w); err != nil {
		return err
	}
	for _, want := range []string{"a", "c"} {
		buf := make([]byte, 1)
		if _, err := mpi.Recv(buf, 0, 97, w); err != nil || string(buf) != want {
			return fmt.Errorf("receive on tag 97: %v, got %q, want %q (b was cancelled)", err, buf, want)
		}
	}
	buf := make([]byte, 1)
	d, err := mpi.Irecv(buf, 0, 96, w)
	if err != nil {
		return err
	}
	if err := mpi.Send([]byte{1}, 0, 4, w); err != nil {
		return err
	}
	if _, err := d.Wait(); err != nil || string(buf) != "d" {
		return fmt.Errorf("receive of the matched eager send: %v, got %q", err, buf)
	}
	return mpi.Send([]byte{1}, 0, 5, w)
}

// probeOrIprobe waits for a message from rank 0 with any tag, with Probe
// or by calling Iprobe until it finds one.
func probeOrIprobe(w mpi.Comm, iprobe bool) (mpi.Status, error) {
	if !iprobe {
		return mpi.Probe(0, mpi.AnyTag, w)
	}
	for {
		st, found, err := mpi.Iprobe(0, mpi.AnyTag, w)
		if err != nil || found {
			return st, err
		}
	}
}

// ssend: a synchronous send must not complete while its receiver has not
// posted the receive; rank 1 posts only when rank 0 says so.
func ssend(w mpi.Comm) error {
	switch w.Rank() {
	case 0:
		r, err := mpi.Issend([]int64{7}, 1, 3, w)
		if err != nil {
			return err
		}
		deadline := time.Now().Add(300 * time.Millisecond)
		for time.Now().Before(deadline) {
			if _, done, err := r.Test(); err != nil || done {
				return fmt.Errorf("synchronous send completed before the receive was posted (err %v)", err)
			}
			time.Sleep(time.Millisecond)
		}
		if err := mpi.Send([]byte("go"), 1, 4, w); err != nil {
			return err
		}
		_, err = r.Wait()
		return err
	case 1:
		if _, err := mpi.Recv(make([]byte, 2), 0, 4, w); err != nil {
			return err
		}
		buf := make([]int64, 1)
		if _, err := mpi.Recv(buf, 0, 3, w); err != nil || buf[0] != 7 {
			return fmt.Errorf("recv: %v, got %d", err, buf[0])
		}
	}
	return nil
}

// random: 10 000 messages of random sizes and tags between random pairs,
// from a plan every rank derives from the same seed; every payload is
// checked.
func random(w mpi.Comm) error {
	const total, batch = 10_000, 1000
	type msg struct {
		src, dst, tag, size int
		sync                bool
	}
	rng := rand.New(rand.NewPCG(42, uint64(w.Size())))
	plan := make([]msg, total)
	for i := range plan {
		size := rng.IntN(1024)
		switch p := rng.IntN(100); {
		case p < 20:
			size = rng.IntN(64 << 10)
		case p < 24:
			size = rng.IntN(512 << 10)
		}
		plan[i] = msg{rng.IntN(w.Size()), rng.IntN(w.Size()), rng.IntN(8), size, rng.IntN(10) == 0}
	}
	me := w.Rank()
	for start := 0; start < total; start += batch {
		var reqs []mpi.Request
		bufs := map[int][]byte{}
		for i := start; i < start+batch; i++ {
			m := plan[i]
			if m.dst == me {
				bufs[i] = make([]byte, m.size)
				r, err := mpi.Irecv(bufs[i], m.src, m.tag, w)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			if m.src == me {
				buf := make([]byte, m.size)
				pattern(buf, uint64(i))
				send := mpi.Isend[byte]
				if m.sync {
					send = mpi.Issend[byte]
				}
				r, err := send(buf, m.dst, m.tag, w)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
		}
		if err := mpi.WaitAll(reqs...); err != nil {
			return err
		}
		for i, buf := range bufs {
			if err := checkPattern(buf, uint64(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// big: a 256 MiB message from rank 0 to rank 1.
func big(w mpi.Comm) error {
	const size = 256 << 20
	buf := make([]byte, size)
	switch w.Rank() {
	case 0:
		pattern(buf, 256)
		return mpi.Send(buf, 1, 0, w)
	case 1:
		st, err := mpi.Recv(buf, 0, 0, w)
		if err != nil || st.Count != size {
			return fmt.Errorf("recv: %v, count %d", err, st.Count)
		}
		return checkPattern(buf, 256)
	}
	return nil
}

// self: every rank sends to itself, eager and rendezvous, on the world and
// self communicators, with the receive posted before and after.
func self(w mpi.Comm) error {
	for _, comm := range []mpi.Comm{w, mpi.CommSelf()} {
		me := comm.Rank()
		for i, size := range []int{0, 10, 4096, 1 << 20} {
			msg := make([]byte, size)
			pattern(msg, uint64(i))
			buf := make([]byte, size)
			r, err := mpi.Irecv(buf, me, i, comm)
			if err != nil {
				return err
			}
			if err := mpi.Send(msg, me, i, comm); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return fmt.Errorf("%v, posted first: %w", comm, err)
			}
			s, err := mpi.Isend(msg, me, i, comm)
			if err != nil {
				return err
			}
			clear(buf)
			if _, err := mpi.Recv(buf, me, i, comm); err != nil {
				return err
			}
			if _, err := s.Wait(); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return fmt.Errorf("%v, sent first: %w", comm, err)
			}
		}
	}
	return nil
}

// huge: a self-send of more than 2^31 elements.
func huge(w mpi.Comm) error {
	const n = 1<<31 + 3
	msg := make([]int8, n)
	msg[0], msg[n-1] = 1, 2
	buf := make([]int8, n)
	r, err := mpi.Irecv(buf, w.Rank(), 0, w)
	if err != nil {
		return err
	}
	if err := mpi.Send(msg, w.Rank(), 0, w); err != nil {
		return err
	}
	st, err := r.Wait()
	if err != nil || st.Count != n || buf[0] != 1 || buf[n-1] != 2 {
		return fmt.Errorf("status %+v err %v", st, err)
	}
	return nil
}

// crash: rank 1 dies with status 3 while rank 0 waits for it.
func crash(w mpi.Comm) error {
	if w.Rank() == 1 {
		os.Exit(3)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	// Exiting now would race rank 1's exit to gompirun, which reports
	// the first failure it sees: wait to be stopped instead.
	fmt.Printf("crash rank %d: recv from a crashed rank returned: %v\n", w.Rank(), err)
	time.Sleep(time.Hour)
	return fmt.Errorf("recv from a crashed rank returned: %v", err)
}

// hang: every rank waits for a message nobody sends.
func hang(w mpi.Comm) error {
	_, err := mpi.Recv(make([]byte, 1), (w.Rank()+1)%w.Size(), 0, w)
	return err
}

// pingpong: rank 0 waits for a line on its standard input (the test writes
// junk to rank 1's port first), then exchanges 200 messages with rank 1.
func pingpong(w mpi.Comm) error {
	if w.Rank() == 0 {
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return fmt.Errorf("reading the go-ahead: %w", err)
		}
	}
	buf := make([]byte, 1000)
	for i := range 200 {
		switch w.Rank() {
		case 0:
			pattern(buf, uint64(i))
			if err := mpi.Send(buf, 1, 0, w); err != nil {
				return err
			}
			if _, err := mpi.Recv(buf, 1, 0, w); err != nil {
				return err
			}
		case 1:
			if _, err := mpi.Recv(buf, 0, 0, w); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return err
			}
			if err := mpi.Send(buf, 0, 0, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// badArgs: invalid arguments return errors with the right class and say what was wrong.
func badArgs(w mpi.Comm) error {
	checks := []struct {
		err  error
		is   error
		text string
	}{
		{mpi.Send([]byte{1}, w.Size(), 0, w), mpi.ErrRank, fmt.Sprintf("rank %d is out of range", w.Size())},
		{mpi.Send([]byte{1}, 0, -5, w), mpi.ErrTag, "tag -5 is out of range"},
		{mpi.Send([]byte{1}, 0, 0, mpi.Comm{}), mpi.ErrComm, "communicator is nil"},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.is) || !strings.Contains(fmt.Sprint(c.err), c.text) {
			return fmt.Errorf("error %v, want %v saying %q", c.err, c.is, c.text)
		}
	}
	if err := mpi.Send([]byte{1}, mpi.ProcNull, 0, w); err != nil {
		return fmt.Errorf("send to ProcNull: %w", err)
	}
	st, err := mpi.Recv(make([]byte, 1), mpi.ProcNull, 0, w)
	if err != nil || st.Source != mpi.ProcNull || st.Count != 0 {
		return fmt.Errorf("recv from ProcNull: %+v %v", st, err)
	}
	return nil
}

// fatal: with ErrorsAreFatal, rank 1's invalid send aborts the whole job
// with the error class as exit code, while rank 0 waits.
func fatal(w mpi.Comm) error {
	w.SetErrorHandler(mpi.ErrorsAreFatal)
	if w.Rank() == 1 {
		err := mpi.Send([]byte{1}, w.Size()+5, 0, w)
		return fmt.Errorf("an invalid send returned instead of aborting: %v", err)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	return fmt.Errorf("recv returned: %v", err)
}

// pairs: ranks i and i+n/2 ping-pong at once, pausing now and then so that
// the transports' reader goroutines take over from polling and back.
func pairs(w mpi.Comm) error {
	half := w.Size() / 2
	peer := (w.Rank() + half) % w.Size()
	sizes := []int{0, 64, 70_000, 1 << 20} // eager and rendezvous
	big := make([]byte, 1<<20)
	for i := range 400 {
		if i%40 == 0 {
			time.Sleep(3 * time.Millisecond)
		}
		buf := big[:sizes[i%len(sizes)]]
		if w.Rank() < half {
			if err := mpi.Send(buf, peer, i, w); err != nil {
				return err
			}
			if _, err := mpi.Recv(buf, peer, i, w); err != nil {
				return err
			}
		} else {
			if _, err := mpi.Recv(buf, peer, i, w); err != nil {
				return err
			}
			if err := mpi.Send(buf, peer, i, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// bidir: ranks 0 and 1 flood each other at once with windows of 64 eager
// and then 64 rendezvous messages, as a bidirectional bandwidth test does.
func bidir(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	peer := 1 - w.Rank()
	for round, size := range []int{60 << 10, 1 << 20} {
		var reqs []mpi.Request
		in := make([][]byte, 64)
		for i := range in {
			in[i] = make([]byte, size)
			r, err := mpi.Irecv(in[i], peer, i, w)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		for i := range 64 {
			out := make([]byte, size)
			pattern(out, uint64(1000*round+100*w.Rank()+i))
			r, err := mpi.Isend(out, peer, i, w)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		if err := mpi.WaitAll(reqs...); err != nil {
			return err
		}
		for i, b := range in {
			if err := checkPattern(b, uint64(1000*round+100*peer+i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// window: every other rank sends rank 0 a window of messages of mixed
// sizes, most above the single-copy threshold, into receives posted
// before any arrives (a barrier waits for them), so that one poll
// matches many: the reads of one sender that fit together are made in
// one system call. Some receive buffers are larger than their message.
func window(w mpi.Comm) error {
	sizes := []int{40 << 10, 33 << 10, 100, 64 << 10, 200 << 10, 32 << 10, 0, 90 << 10, 300 << 10, 48 << 10}
	const rounds = 3
	me, n := w.Rank(), w.Size()
	id := func(from, round, i int) uint64 { return uint64(10000*from + 100*round + i) }
	for round := range rounds {
		if me != 0 {
			if err := mpi.Barrier(w); err != nil {
				return err
			}
			var reqs []mpi.Request
			for i, size := range sizes {
				out := make([]byte, size)
				pattern(out, id(me, round, i))
				r, err := mpi.Isend(out, 0, i, w)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			if err := mpi.WaitAll(reqs...); err != nil {
				return err
			}
			continue
		}
		in := make([][]byte, 0, (n-1)*len(sizes))
		var reqs []mpi.Request
		for from := 1; from < n; from++ {
			for i, size := range sizes {
				b := make([]byte, size+i%3*1000) // some buffers larger than the message
				r, err := mpi.Irecv(b, from, i, w)
				if err != nil {
					return err
				}
				in, reqs = append(in, b), append(reqs, r)
			}
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		sts := make([]mpi.Status, len(reqs))
		if err := mpi.WaitAllStatus(reqs, sts); err != nil {
			return err
		}
		for k, b := range in {
			from, i := 1+k/len(sizes), k%len(sizes)
			if sts[k].Count != sizes[i] || sts[k].Source != from {
				return fmt.Errorf("round %d, message %d from rank %d: count %d from rank %d", round, i, from, sts[k].Count, sts[k].Source)
			}
			if err := checkPattern(b[:sizes[i]], id(from, round, i)); err != nil {
				return fmt.Errorf("round %d, from rank %d: %w", round, from, err)
			}
		}
	}
	return nil
}

// complete: the calls that complete several requests (WaitSome, TestAny,
// TestAll, TestAllStatus) on receives of messages that rank 1 sends with
// Ssend, one round per call. Rank 1 sends only when rank 0 says so, so
// that rank 0's tests before then must find nothing done.
func complete(w mpi.Comm) error {
	if tick := mpi.Wtick(); !(tick > 0 && tick <= 1e-6) {
		return fmt.Errorf("Wtick = %g s, want a resolution above 0 and at most 1 us", tick)
	}
	const n = 6
	rounds := []string{"waitsome", "testany", "testall", "testallstatus"}
	value := func(round, i int) int32 { return int32(100*round + i) }
	for round, how := range rounds {
		if w.Rank() == 1 {
			if _, err := mpi.Recv(make([]byte, 1), 0, 100+round, w); err != nil {
				return err
			}
			for i := n - 1; i >= 0; i-- { // against the order of the receives
				if err := mpi.Ssend([]int32{value(round, i)}, 0, i, w); err != nil {
					return fmt.Errorf("%s: ssend %d: %w", how, i, err)
				}
			}
			continue
		}
		if w.Rank() != 0 {
			continue
		}
		bufs, reqs := make([][]int32, n), make([]mpi.Request, n)
		for i := range n {
			bufs[i] = make([]int32, 1)
			r, err := mpi.Irecv(bufs[i], 1, i, w)
			if err != nil {
				return err
			}
			reqs[i] = r
		}
		// Nothing was sent yet: nothing may be complete.
		if i, _, found, err := mpi.TestAny(reqs); err != nil || found {
			return fmt.Errorf("%s: TestAny before any send: index %d, found %v, %v", how, i, found, err)
		}
		if done, err := mpi.TestAll(reqs...); err != nil || done {
			return fmt.Errorf("%s: TestAll before any send: %v, %v", how, done, err)
		}
		if done, err := mpi.TestAllStatus(reqs, make([]mpi.Status, n)); err != nil || done {
			return fmt.Errorf("%s: TestAllStatus before any send: %v, %v", how, done, err)
		}
		if err := mpi.Send([]byte{1}, 1, 100+round, w); err != nil {
			return err
		}
		sts := make([]mpi.Status, n)
		seen := make([]bool, n)
		statuses := how != "testall" // TestAll gives none
		take := func(i int, st mpi.Status) error {
			if i < 0 || i >= n || seen[i] {
				return fmt.Errorf("%s: index %d completed again or out of range", how, i)
			}
			if reqs[i].Active() {
				return fmt.Errorf("%s: request %d still active after it completed", how, i)
			}
			seen[i], sts[i] = true, st
			return nil
		}
		switch how {
		case "waitsome":
			for {
				idx, got, err := mpi.WaitSome(reqs)
				if err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
				if len(idx) == 0 {
					break // no active request left
				}
				for k, i := range idx {
					if err := take(i, got[k]); err != nil {
						return err
					}
				}
			}
		case "testany":
			for {
				i, st, found, err := mpi.TestAny(reqs)
				if err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
				if !found {
					continue
				}
				if i == mpi.Undefined {
					break // no active request left
				}
				if err := take(i, st); err != nil {
					return err
				}
			}
		case "testall":
			for done := false; !done; {
				var err error
				if done, err = mpi.TestAll(reqs...); err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
			}
			for i := range n {
				if err := take(i, mpi.Status{}); err != nil {
					return err
				}
			}
		case "testallstatus":
			got := make([]mpi.Status, n)
			for done := false; !done; {
				var err error
				if done, err = mpi.TestAllStatus(reqs, got); err != nil {
					return fmt.Errorf("%s: %w", how, err)
				}
			}
			for i := range n {
				if err := take(i, got[i]); err != nil {
					return err
				}
			}
		}
		for i := range n {
			if !seen[i] || bufs[i][0] != value(round, i) {
				return fmt.Errorf("%s: receive %d: seen %v, value %d; want value %d", how, i, seen[i], bufs[i][0], value(round, i))
			}
			if st := sts[i]; statuses && (st.Source != 1 || st.Tag != i || st.Count != 1) {
				return fmt.Errorf("%s: receive %d: source %d, tag %d, count %d; want source 1, tag %d, count 1",
					how, i, st.Source, st.Tag, st.Count, i)
			}
		}
		// Every request is inactive now: the calls say so.
		if idx, _, err := mpi.WaitSome(reqs); len(idx) != 0 || err != nil {
			return fmt.Errorf("%s: WaitSome on inactive requests: %v, %v", how, idx, err)
		}
		if i, _, found, err := mpi.TestAny(reqs); i != mpi.Undefined || !found || err != nil {
			return fmt.Errorf("%s: TestAny on inactive requests: index %d, found %v, %v", how, i, found, err)
		}
		if done, err := mpi.TestAll(reqs...); !done || err != nil {
			return fmt.Errorf("%s: TestAll on inactive requests: %v, %v", how, done, err)
		}
	}
	return nil
}

// abort: rank 1 calls Abort with code 7 while rank 0 waits for a message
// that never comes; the job must end with that code.
func abort(w mpi.Comm) error {
	if w.Rank() == 1 {
		err := mpi.Abort(w, 7)
		return fmt.Errorf("Abort returned: %v", err)
	}
	_, err := mpi.Recv(make([]byte, 1), 1, 0, w)
	return fmt.Errorf("recv returned: %v", err)
}

// eager: rank 0 sends windows of small messages with Isend to rank 1.
// Each Request is active until waited on, though the message has left;
// waiting on one twice is harmless, and every message arrives whole and in
// order, the last ones of a window too, which the transport may have held
// back until rank 0's next call.
func eager(w mpi.Comm) error {
	const window, rounds = 64, 3
	for round := range rounds {
		switch w.Rank() {
		case 0:
			reqs := make([]mpi.Request, window)
			for i := range window {
				out := make([]byte, i)
				pattern(out, uint64(round*window+i))
				r, err := mpi.Isend(out, 1, i, w)
				if err != nil {
					return err
				}
				if !r.Active() {
					return fmt.Errorf("round %d: the Isend of %d bytes is not active", round, i)
				}
				reqs[i] = r
			}
			first := reqs[0]
			for range 2 {
				if st, err := first.Wait(); err != nil || st.Cancelled {
					return fmt.Errorf("wait on a completed eager send: %+v, %v", st, err)
				}
			}
			if round < rounds-1 {
				if err := mpi.WaitAll(reqs...); err != nil {
					return err
				}
			} else {
				// WaitAny returns every send once, then Undefined. The first
				// was waited on above through a copy, which freed it.
				seen := make([]bool, window)
				for {
					i, _, err := mpi.WaitAny(reqs)
					if err != nil {
						return err
					}
					if i == mpi.Undefined {
						break
					}
					if i < 0 || i >= window || seen[i] || reqs[i] != (mpi.Request{}) {
						return fmt.Errorf("WaitAny returned send %d again, out of range or left in place", i)
					}
					seen[i] = true
				}
				for i, ok := range seen {
					if !ok && i > 0 {
						return fmt.Errorf("WaitAny never returned send %d", i)
					}
				}
				if seen[0] {
					return errors.New("WaitAny returned the send waited on before through a copy")
				}
			}
			for i, r := range reqs {
				if r.Active() {
					return fmt.Errorf("round %d: send %d active after it completed", round, i)
				}
			}
			if _, err := mpi.Recv(make([]byte, 1), 1, 1000, w); err != nil {
				return err
			}
		case 1:
			bufs, reqs := make([][]byte, window), make([]mpi.Request, window)
			for i := range window {
				bufs[i] = make([]byte, window)
				r, err := mpi.Irecv(bufs[i], 0, i, w)
				if err != nil {
					return err
				}
				reqs[i] = r
			}
			sts := make([]mpi.Status, window)
			if err := mpi.WaitAllStatus(reqs, sts); err != nil {
				return err
			}
			for i, st := range sts {
				if st.Source != 0 || st.Tag != i || st.Count != i {
					return fmt.Errorf("round %d, message %d: source %d, tag %d, count %d", round, i, st.Source, st.Tag, st.Count)
				}
				if err := checkPattern(bufs[i][:i], uint64(round*window+i)); err != nil {
					return fmt.Errorf("round %d: %w", round, err)
				}
			}
			if err := mpi.Send([]byte{1}, 0, 1000, w); err != nil {
				return err
			}
		}
	}
	return nil
}
