package btltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
)

// Factory builds one module per rank of a job, each from the environment
// of its rank (see Envs). Each rank's module must be the one its
// component's Init returns; the suite calls AddProcs, DelProcs and
// Finalize itself.
type Factory func(t *testing.T, envs []btl.InitEnv) []btl.Module

// Suite describes a transport to Run.
type Suite struct {
	// Size is the number of ranks of each job, at least 1.
	Size int
	// New builds the job's modules.
	New Factory
	// Reaches says whether rank from's module reaches rank to's; nil means
	// every rank reaches every rank, itself included.
	Reaches func(from, to int) bool
	// Kill, if set, makes rank, whose module is m, fail as if its
	// process died: its peers must then see it failed, never hang.
	// Without it the failed peer test is skipped.
	Kill func(rank int, m btl.Module)
}

// job is one running job of the suite.
type job struct {
	s     Suite
	mods  []btl.Module
	recvs []*Receiver
	procs []btl.Proc
}

// Run checks the contract of btl.Module, each part in a subtest on a new job.
// The parts for the optional interfaces (SingleCopy and ReadAll,
// SendFrom for btl.Gatherer, TrySend for btl.TrySender, ReadScatter and
// ReadVector for btl.ScatterCopier, the Vector parts for btl.VectorSender
// and the receivers that are btl.VectorPlacers) skip modules that lack
// them.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.Size < 1 || s.New == nil {
		t.Fatalf("btltest: a suite needs a Size of at least 1 and a Factory (have %d, %v)", s.Size, s.New != nil)
	}
	if s.Reaches == nil {
		s.Reaches = func(int, int) bool { return true }
	}
	t.Run("AddProcs", func(t *testing.T) { s.start(t) }) // start checks the reach
	t.Run("Sizes", s.testSizes)
	t.Run("Headers", s.testHeaders)
	t.Run("Reuse", s.testReuse)
	t.Run("Concurrent", s.testConcurrent)
	t.Run("Place", s.testPlace)
	t.Run("Idle", s.testIdle)
	t.Run("Doze", s.testDoze)
	t.Run("SingleCopy", s.testSingleCopy)
	t.Run("ReadAll", s.testReadAll)
	t.Run("SendFrom", s.testSendFrom)
	t.Run("TrySend", s.testTrySend)
	t.Run("ReadScatter", s.testReadScatter)
	t.Run("ReadVector", s.testReadVector)
	t.Run("VectorParts", s.testVectorParts)
	t.Run("VectorTooLarge", s.testVectorRefused)
	t.Run("VectorAfterPosts", s.testVectorAfterPosts)
	t.Run("VectorPlaced", s.testVectorPlaced)
	t.Run("DelProcs", s.testDelProcs)
	t.Run("Finalize", s.testFinalize)
	t.Run("FailedPeer", s.testFailedPeer)
	t.Run("FailedPeerWhilePolling", s.testFailedPeerWhilePolling)
}

// start builds a job and adds every rank to every module.
func (s Suite) start(t *testing.T) *job {
	t.Helper()
	envs, recvs := Envs(t, s.Size)
	mods := s.New(t, envs)
	if len(mods) != s.Size {
		t.Fatalf("btltest: the factory made %d modules for %d ranks", len(mods), s.Size)
	}
	for _, m := range mods {
		t.Cleanup(func() { m.Finalize() })
	}
	j := &job{s: s, mods: mods, recvs: recvs, procs: Procs(s.Size)}
	for from, m := range mods {
		reach, err := m.AddProcs(context.Background(), j.procs)
		if err != nil {
			t.Fatalf("rank %d: AddProcs: %v", from, err)
		}
		if len(reach) != len(j.procs) {
			t.Fatalf("rank %d: AddProcs answered for %d procs, was given %d", from, len(reach), len(j.procs))
		}
		for to, ok := range reach {
			if ok != s.Reaches(from, to) {
				t.Fatalf("rank %d: AddProcs says it reaches rank %d: %v; want %v", from, to, ok, !ok)
			}
		}
	}
	return j
}

// pairs lists every (from, to) of the job that a module reaches.
func (j *job) pairs() [][2]int {
	var ps [][2]int
	for from := range j.mods {
		for to := range j.mods {
			if j.s.Reaches(from, to) {
				ps = append(ps, [2]int{from, to})
			}
		}
	}
	return ps
}

// poll drives every module once.
func (j *job) poll() {
	for _, m := range j.mods {
		m.Progress()
	}
}

// sending runs send while another goroutine drives every module, as each
// rank of a job polls on its own: a module whose Send waits for room (a
// ring that holds a few of the largest fragments) finds it when more is
// sent to a peer than it holds unread.
func (j *job) sending(send func()) {
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
				j.poll()
				runtime.Gosched()
			}
		}
	}()
	defer func() {
		close(stop)
		<-stopped
	}()
	send()
}

// PostAgain calls post until it returns something other than btl.ErrFull,
// as a Poster's caller does while another goroutine polls the receiver.
func PostAgain(post func() error) error {
	for {
		if err := post(); err != btl.ErrFull {
			return err
		}
		runtime.Gosched()
	}
}

// header encodes the sender, stream and sequence of a fragment in its
// first 12 bytes, padded or cut to size bytes.
func header(from, stream, seq, size int) []byte {
	h := make([]byte, max(size, 12))
	binary.LittleEndian.PutUint32(h, uint32(from))
	binary.LittleEndian.PutUint32(h[4:], uint32(stream))
	binary.LittleEndian.PutUint32(h[8:], uint32(seq))
	for i := 12; i < len(h); i++ {
		h[i] = byte(i * 7)
	}
	return h[:size]
}

// payload is the content of a fragment: it depends on every field of the
// header, so a fragment mixed with another shows.
func payload(from, stream, seq, n int) []byte {
	b := make([]byte, n+7)
	x := uint64(from*1_000_003+stream*7919+seq*31) | 1
	for i := 0; i < n; i += 8 {
		x = x*6364136223846793005 + 1442695040888963407
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	return b[:n:n]
}

// check verifies a fragment against what its sender sent.
func check(t *testing.T, f Frame, wantHdr []byte, wantLen int, from, stream, seq int) {
	t.Helper()
	if !bytes.Equal(f.Hdr, wantHdr) {
		t.Fatalf("fragment %d of stream %d from rank %d: header of %d bytes differs from the %d sent", seq, stream, from, len(f.Hdr), len(wantHdr))
	}
	if len(f.Payload) != wantLen || !bytes.Equal(f.Payload, payload(from, stream, seq, wantLen)) {
		t.Fatalf("fragment %d of stream %d from rank %d: payload of %d bytes differs from the %d sent", seq, stream, from, len(f.Payload), wantLen)
	}
	if f.Placed {
		t.Fatalf("fragment %d from rank %d delivered as placed without a Place", seq, from)
	}
}

// testSizes sends, on every reached pair, payloads of the sizes that
// matter, and checks they arrive whole and in order.
func (s Suite) testSizes(t *testing.T) {
	j := s.start(t)
	ctx := context.Background()
	var list []sizes
	for _, hlen := range []int{1, btl.MaxHeaderSize} {
		m := j.mods[0]
		for _, n := range []int{0, 1, m.EagerLimit(), m.MaxSendSize(), 1} {
			list = append(list, sizes{hlen, n})
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		for seq, x := range list {
			n := min(x.plen, j.mods[from].MaxSendSize())
			if err := j.mods[from].Send(ctx, to, header(from, 0, seq, x.hlen), payload(from, 0, seq, n)); err != nil {
				t.Fatalf("rank %d: Send to rank %d of a %d-byte header and %d-byte payload: %v", from, to, x.hlen, n, err)
			}
		}
	}
	j.checkArrived(t, 0, list)
}

// sizes is the header and payload lengths of a fragment a part sends.
type sizes struct{ hlen, plen int }

// sendByTurns sends every size that matters to the modules, with either
// header size, then a third of it, on stream over every reached pair
// while every module is driven: the odd fragments with Send and the even
// ones with send (flushed after, for a btl.Poster), so that each size goes
// both ways. Then it checks what arrived.
func (j *job) sendByTurns(t *testing.T, stream int, send func(m btl.Module, to int, hdr, payload []byte, seq int)) {
	t.Helper()
	var list []sizes
	for _, plen := range []int{0, 1, 47, 100, 4097, j.mods[0].EagerLimit(), j.mods[0].MaxSendSize()} {
		for _, hlen := range []int{btl.SmallHeaderSize, btl.MaxHeaderSize} {
			list = append(list, sizes{hlen, plen}, sizes{hlen, plen / 3})
		}
	}
	j.sending(func() {
		for _, p := range j.pairs() {
			from, to := p[0], p[1]
			m := j.mods[from]
			for seq, x := range list {
				n := min(x.plen, m.MaxSendSize())
				hdr, pl := header(from, stream, seq, x.hlen), payload(from, stream, seq, n)
				if seq%2 == 0 {
					send(m, to, hdr, pl, seq)
				} else if err := m.Send(context.Background(), to, hdr, pl); err != nil {
					t.Fatalf("rank %d: Send to rank %d of %d bytes: %v", from, to, n, err)
				}
			}
			if poster, ok := m.(btl.Poster); ok {
				poster.Flush(to)
			}
		}
	})
	j.checkArrived(t, stream, list)
}

// checkArrived waits until every rank holds, from each rank that reaches
// it, a fragment of stream for each of list, and checks that they arrived
// whole and in order, payloads cut to the sender's MaxSendSize.
func (j *job) checkArrived(t *testing.T, stream int, list []sizes) {
	t.Helper()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= len(list) })
		fs := r.From(from)
		if len(fs) != len(list) {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, len(list))
		}
		for seq, f := range fs {
			check(t, f, header(from, stream, seq, list[seq].hlen), min(list[seq].plen, j.mods[from].MaxSendSize()), from, stream, seq)
		}
	}
}

// testHeaders: a header of 0 or more than btl.MaxHeaderSize bytes is refused.
func (s Suite) testHeaders(t *testing.T) {
	j := s.start(t)
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		for _, n := range []int{0, btl.MaxHeaderSize + 1} {
			err := j.mods[from].Send(ctx, to, make([]byte, n), []byte("x"))
			if err == nil {
				t.Errorf("rank %d: Send to rank %d with a %d-byte header succeeded; headers are 1-%d bytes", from, to, n, btl.MaxHeaderSize)
			}
			namesPeer(t, from, to, err)
		}
	}
	for rank, r := range j.recvs {
		if n := r.Count(); n != 0 {
			t.Errorf("rank %d: %d refused fragments were delivered", rank, n)
		}
	}
}

// testReuse: the caller may write over hdr and payload once Send returns,
// and once Post returns for a module that holds fragments back
// (btl.Poster): each fragment arrives as it was when sent. A module that
// takes small headers by value (btl.SmallSender, btl.SmallPoster) sends
// and posts some fragments that way, between the others, which must keep
// their order.
func (s Suite) testReuse(t *testing.T) {
	const count, hlen = 8, btl.SmallHeaderSize
	j := s.start(t)
	ctx := context.Background()
	size := func(from int) int { return min(64, j.mods[from].EagerLimit(), j.mods[from].MaxSendSize()) }
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		m := j.mods[from]
		hdr, pl := make([]byte, hlen), make([]byte, size(from))
		poster, posts := m.(btl.Poster)
		small, smalls := m.(btl.SmallSender)
		smallPost, smallPosts := m.(btl.SmallPoster)
		for seq := range count {
			copy(hdr, header(from, 1, seq, hlen))
			copy(pl, payload(from, 1, seq, len(pl)))
			send, how := m.Send, "Send"
			switch {
			case smalls && seq%4 == 1:
				send, how = func(_ context.Context, to int, hdr, pl []byte) error {
					return small.SendSmall(to, smallHeader(hdr), pl)
				}, "SendSmall"
			case smallPosts && seq%4 == 2:
				send, how = func(_ context.Context, to int, hdr, pl []byte) error {
					return smallPost.PostSmall(to, smallHeader(hdr), pl)
				}, "PostSmall"
			case posts && seq%4 != 3:
				send, how = poster.Post, "Post"
			}
			if err := send(ctx, to, hdr, pl); err != nil {
				t.Fatalf("rank %d: %s to rank %d: %v", from, how, to, err)
			}
			for _, b := range [][]byte{hdr, pl} {
				for i := range b {
					b[i] = 0xee
				}
			}
		}
		if posts {
			poster.Flush(to)
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= count })
		fs := r.From(from)
		if len(fs) != count {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, count)
		}
		for seq, f := range fs {
			check(t, f, header(from, 1, seq, hlen), size(from), from, 1, seq)
		}
	}
}

// smallHeader is hdr, of btl.SmallHeaderSize bytes, as a btl.SmallHeader.
func smallHeader(hdr []byte) btl.SmallHeader {
	return btl.SmallHeader{Lo: binary.LittleEndian.Uint64(hdr), Hi: binary.LittleEndian.Uint64(hdr[8:])}
}

// testConcurrent: several goroutines per rank send to every reached peer
// at once; each goroutine's fragments to a peer arrive in its order.
func (s Suite) testConcurrent(t *testing.T) {
	const streams, perStream = 4, 20
	j := s.start(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(j.mods)*streams)
	want := make([]int, len(j.mods))
	for _, p := range j.pairs() {
		want[p[1]] += streams * perStream
	}
	for from, m := range j.mods {
		for stream := range streams {
			wg.Go(func() {
				for seq := range perStream {
					for to := range j.mods {
						if !s.Reaches(from, to) {
							continue
						}
						n := (seq*7919 + stream*104729) % (min(m.EagerLimit(), m.MaxSendSize()) + 1)
						if err := m.Send(ctx, to, header(from, stream, seq, 16), payload(from, stream, seq, n)); err != nil {
							errs <- fmt.Errorf("rank %d: Send to rank %d: %w", from, to, err)
							return
						}
					}
				}
			})
		}
	}
	// Poll while the senders send: a module that delivers only when
	// polled may need its peers polled to make room.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
			j.poll()
			runtime.Gosched()
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for to, r := range j.recvs {
		r.WaitFor(t, fmt.Sprintf("rank %d: every fragment", to), j.poll, func() bool { return r.Count() >= want[to] })
		if n := r.Count(); n != want[to] {
			t.Fatalf("rank %d: %d fragments delivered, sent %d", to, n, want[to])
		}
		next := map[[2]int]int{}
		for _, f := range r.Frames() {
			if len(f.Hdr) != 16 {
				t.Fatalf("rank %d: a %d-byte header, sent 16", to, len(f.Hdr))
			}
			from := int(binary.LittleEndian.Uint32(f.Hdr))
			stream := int(binary.LittleEndian.Uint32(f.Hdr[4:]))
			seq := int(binary.LittleEndian.Uint32(f.Hdr[8:]))
			if from != f.From {
				t.Fatalf("rank %d: a fragment of rank %d delivered as from rank %d", to, from, f.From)
			}
			k := [2]int{from, stream}
			if seq != next[k] {
				t.Fatalf("rank %d: fragment %d of rank %d's stream %d arrived when %d was due", to, seq, from, stream, next[k])
			}
			next[k]++
			m := j.mods[from]
			check(t, f, header(from, stream, seq, 16), (seq*7919+stream*104729)%(min(m.EagerLimit(), m.MaxSendSize())+1), from, stream, seq)
		}
	}
}

// testPlace: a fragment delivered as placed has its payload in the
// buffer Place returned; a Place of the wrong size is not used.
func (s Suite) testPlace(t *testing.T) {
	const n = 3000
	j := s.start(t)
	var mu sync.Mutex
	bufs := map[[3]int][]byte{} // by receiver, sender and sequence
	for to, r := range j.recvs {
		r.PlaceFunc = func(from int, hdr []byte, size int) []byte {
			seq := int(binary.LittleEndian.Uint32(hdr[8:]))
			b := make([]byte, size+seq) // sequence 1 gets a buffer one byte too long
			mu.Lock()
			bufs[[3]int{to, from, seq}] = b
			mu.Unlock()
			return b
		}
	}
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		for seq := range 2 {
			if err := j.mods[from].Send(ctx, to, header(from, to, seq, 12), payload(from, to, seq, n)); err != nil {
				t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
			}
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll, func() bool { return len(r.From(from)) == 2 })
		for seq, f := range r.From(from) {
			if !bytes.Equal(f.Payload, payload(from, to, seq, n)) {
				t.Fatalf("rank %d: fragment %d from rank %d: corrupt payload (placed %v)", to, seq, from, f.Placed)
			}
			if !f.Placed {
				continue
			}
			if seq == 1 {
				t.Fatalf("rank %d: fragment from rank %d placed in a buffer of the wrong size", to, from)
			}
			mu.Lock()
			b := bufs[[3]int{to, from, seq}]
			mu.Unlock()
			if !bytes.Equal(b, f.Payload) {
				t.Fatalf("rank %d: fragment from rank %d delivered as placed, but the Place buffer holds other bytes", to, from)
			}
		}
	}
}

// testIdle: a module that delivers only when polled (btl.Idler) delivers
// on its own between Idle and Busy.
func (s Suite) testIdle(t *testing.T) {
	j := s.start(t)
	if _, ok := j.mods[0].(btl.Idler); !ok {
		t.Skip("the module is no btl.Idler")
	}
	for _, m := range j.mods {
		m.(btl.Idler).Idle()
	}
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		if err := j.mods[from].Send(ctx, to, header(from, 0, 0, 12), payload(from, 0, 0, 100)); err != nil {
			t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: idle, a fragment from rank %d", to, from), nil, func() bool { return len(r.From(from)) == 1 })
		check(t, r.From(from)[0], header(from, 0, 0, 12), 100, from, 0, 0)
	}
	for _, m := range j.mods {
		m.(btl.Idler).Busy()
	}
}

// testDoze: a Doze (btl.Dozer) of a rank ends when a peer sends to it,
// when Wake is called, and at once when ready says so; its time-out is
// long enough that only a lost wake-up hangs the test.
func (s Suite) testDoze(t *testing.T) {
	j := s.start(t)
	if _, ok := j.mods[0].(btl.Dozer); !ok {
		t.Skip("the module is no btl.Dozer")
	}
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2) // a doze holds its processor
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	never := func() bool { return false }
	// doze runs rank to's Doze and wake beside it; a wake that can be
	// repeated is, until the Doze returns, since the first may come
	// before the Doze sleeps (the caller's ready covers that case).
	doze := func(to int, ready func() bool, what string, wake func(), repeat bool) {
		t.Helper()
		returned := make(chan struct{})
		go func() {
			j.mods[to].(btl.Dozer).Doze(time.Hour, ready)
			close(returned)
		}()
		wake()
		guard := time.After(hangGuard)
		for {
			select {
			case <-returned:
				return
			case <-guard:
				t.Fatalf("rank %d: Doze did not return after %s", to, what)
			case <-time.After(time.Millisecond):
				if repeat {
					wake()
				}
			}
		}
	}
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		if from == to {
			continue
		}
		doze(to, never, fmt.Sprintf("a send from rank %d", from), func() {
			if err := j.mods[from].Send(ctx, to, header(from, 0, 0, 12), payload(from, 0, 0, 1)); err != nil {
				t.Errorf("rank %d: Send to rank %d: %v", from, to, err)
			}
		}, false)
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: a fragment from rank %d after a doze", to, from), j.poll, func() bool { return len(r.From(from)) == 1 })
	}
	for to, m := range j.mods {
		doze(to, never, "Wake", m.(btl.Dozer).Wake, true)
		doze(to, func() bool { return true }, "ready said true", func() {}, false)
	}
}

// testDelProcs: after DelProcs a send to the peer fails with
// btl.ErrUnreachable, sends to other peers go on, and nobody is
// reported failed.
func (s Suite) testDelProcs(t *testing.T) {
	j := s.start(t)
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		if err := j.mods[from].Send(ctx, to, header(from, 0, 0, 12), nil); err != nil {
			t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
		}
	}
	for _, p := range j.pairs() {
		r := j.recvs[p[1]]
		r.WaitFor(t, fmt.Sprintf("rank %d: a fragment from rank %d", p[1], p[0]), j.poll, func() bool { return len(r.From(p[0])) == 1 })
	}
	last := s.Size - 1
	if !s.Reaches(0, last) {
		t.Skipf("rank 0 does not reach rank %d", last)
	}
	if err := j.mods[0].DelProcs(ctx, []btl.Proc{j.procs[last]}); err != nil {
		t.Fatalf("rank 0: DelProcs of rank %d: %v", last, err)
	}
	err := j.mods[0].Send(ctx, last, header(0, 0, 1, 12), nil)
	if !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("rank 0: Send to rank %d after DelProcs: %v; want an error wrapping btl.ErrUnreachable", last, err)
	}
	namesPeer(t, 0, last, err)
	for to := range last {
		if !s.Reaches(0, to) {
			continue
		}
		if err := j.mods[0].Send(ctx, to, header(0, 0, 1, 12), nil); err != nil {
			t.Fatalf("rank 0: Send to rank %d after DelProcs of rank %d: %v", to, last, err)
		}
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: the second fragment from rank 0", to), j.poll, func() bool { return len(r.From(0)) == 2 })
	}
	for _, m := range j.mods {
		if err := m.Finalize(); err != nil {
			t.Fatal(err)
		}
	}
	for rank, r := range j.recvs {
		if ps := r.FailedPeers(); len(ps) != 0 {
			t.Errorf("rank %d: peers %v reported failed after DelProcs and Finalize", rank, ps)
		}
	}
}

// testFinalize: once finalized, a module refuses sends and does nothing
// when polled; Finalize again is harmless; finalizing ranks are not
// reported failed.
func (s Suite) testFinalize(t *testing.T) {
	j := s.start(t)
	ctx := context.Background()
	for _, p := range j.pairs() {
		if err := j.mods[p[0]].Send(ctx, p[1], header(p[0], 0, 0, 12), []byte("x")); err != nil {
			t.Fatalf("rank %d: Send to rank %d: %v", p[0], p[1], err)
		}
	}
	for _, p := range j.pairs() {
		r := j.recvs[p[1]]
		r.WaitFor(t, fmt.Sprintf("rank %d: a fragment from rank %d", p[1], p[0]), j.poll, func() bool { return len(r.From(p[0])) == 1 })
	}
	for rank, m := range j.mods {
		if err := m.Finalize(); err != nil {
			t.Fatalf("rank %d: Finalize: %v", rank, err)
		}
	}
	for _, p := range j.pairs() {
		err := j.mods[p[0]].Send(ctx, p[1], header(p[0], 0, 1, 12), nil)
		if err == nil {
			t.Errorf("rank %d: Send to rank %d after Finalize succeeded", p[0], p[1])
		}
		namesPeer(t, p[0], p[1], err)
	}
	for rank, m := range j.mods {
		if n := m.Progress(); n != 0 {
			t.Errorf("rank %d: Progress after Finalize handled %d events", rank, n)
		}
		if err := m.Finalize(); err != nil {
			t.Errorf("rank %d: second Finalize: %v", rank, err)
		}
	}
	for rank, r := range j.recvs {
		if ps := r.FailedPeers(); len(ps) != 0 {
			t.Errorf("rank %d: peers %v reported failed after a clean Finalize", rank, ps)
		}
	}
}

// startToKill starts a job for a test that kills rank 1, or skips the
// test if the suite cannot kill or ranks 0 and 1 do not reach each other.
func (s Suite) startToKill(t *testing.T) *job {
	t.Helper()
	if s.Kill == nil {
		t.Skip("the suite has no Kill")
	}
	if s.Size < 2 || !s.Reaches(0, 1) || !s.Reaches(1, 0) {
		t.Skip("ranks 0 and 1 do not reach each other")
	}
	return s.start(t)
}

// testFailedPeer: when a rank dies, a survivor that talked to it learns
// it, by PeerFailed or by a failing Send, and never hangs; PeerFailed
// comes at most once per peer and wraps btl.ErrPeerFailed.
func (s Suite) testFailedPeer(t *testing.T) {
	j := s.startToKill(t)
	ctx := context.Background()
	for _, p := range [][2]int{{0, 1}, {1, 0}} {
		if err := j.mods[p[0]].Send(ctx, p[1], header(p[0], 0, 0, 12), []byte("x")); err != nil {
			t.Fatalf("rank %d: Send to rank %d: %v", p[0], p[1], err)
		}
		r := j.recvs[p[1]]
		r.WaitFor(t, fmt.Sprintf("rank %d: a fragment from rank %d", p[1], p[0]), j.poll, func() bool { return len(r.From(p[0])) == 1 })
	}
	s.Kill(1, j.mods[1])
	r := j.recvs[0]
	// A module that never sees the death may wait for room in a Send for
	// good: the deadline, a hang guard, makes that a failure.
	sendCtx, cancel := context.WithTimeout(ctx, hangGuard)
	defer cancel()
	var sendErr error
	seq := 1
	r.WaitFor(t, "rank 0 to see rank 1 fail", func() { j.mods[0].Progress() }, func() bool {
		if len(r.Failures(1)) > 0 {
			return true
		}
		sendErr = j.mods[0].Send(sendCtx, 1, header(0, 0, seq, 12), nil)
		seq++
		return sendErr != nil
	})
	if errors.Is(sendErr, context.DeadlineExceeded) {
		t.Fatalf("rank 0: Send to the dead rank 1 still waited after %v: the module does not see it die: %v", hangGuard, sendErr)
	}
	if sendErr != nil && !errors.Is(sendErr, btl.ErrPeerFailed) && !errors.Is(sendErr, btl.ErrUnreachable) {
		t.Errorf("rank 0: Send to the dead rank 1: %v; want an error wrapping btl.ErrPeerFailed", sendErr)
	}
	namesPeer(t, 0, 1, sendErr)
	for _, m := range j.mods[2:] {
		m.Finalize()
	}
	j.mods[0].Finalize()
	fs := r.Failures(1)
	if len(fs) > 1 {
		t.Errorf("rank 0: rank 1 reported failed %d times", len(fs))
	}
	for _, err := range fs {
		if !errors.Is(err, btl.ErrPeerFailed) {
			t.Errorf("rank 0: PeerFailed(1, %v): want an error wrapping btl.ErrPeerFailed", err)
		}
		namesPeer(t, 0, 1, err)
	}
	for _, p := range r.FailedPeers() {
		if p != 1 {
			t.Errorf("rank 0: rank %d reported failed; only rank 1 died", p)
		}
	}
}

// testFailedPeerWhilePolling: a survivor that only polls (a program's
// loop of Iprobe or Test: Progress, never Idle, Doze or a Send) learns
// that a peer died too.
func (s Suite) testFailedPeerWhilePolling(t *testing.T) {
	j := s.startToKill(t)
	if err := j.mods[1].Send(context.Background(), 0, header(1, 0, 0, 12), []byte("x")); err != nil {
		t.Fatalf("rank 1: Send to rank 0: %v", err)
	}
	r := j.recvs[0]
	r.WaitFor(t, "rank 0: a fragment from rank 1", j.poll, func() bool { return len(r.From(1)) == 1 })
	s.Kill(1, j.mods[1])
	r.WaitFor(t, "rank 0, polling, to see rank 1 fail", func() { j.mods[0].Progress() }, func() bool { return len(r.Failures(1)) > 0 })
	for _, err := range r.Failures(1) {
		if !errors.Is(err, btl.ErrPeerFailed) {
			t.Errorf("rank 0: PeerFailed(1, %v): want an error wrapping btl.ErrPeerFailed", err)
		}
	}
	for _, m := range append(j.mods[2:], j.mods[0]) {
		m.Finalize()
	}
}

// namesPeer checks that a send's or a peer failure's error names the
// peer's world rank and not the component: the module is the one layer
// that adds the peer (btl.Module's Send, btl.Receiver's PeerFailed), and
// its caller the one that adds "btl <name>:". A nil error passes.
func namesPeer(t *testing.T, from, to int, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("world rank %d", to)) {
		t.Errorf("rank %d: the error of a Send to or failure of rank %d does not name it as a world rank: %v", from, to, err)
	}
	if strings.HasPrefix(err.Error(), "btl ") {
		t.Errorf("rank %d: the error of a Send to or failure of rank %d names the component, which its caller does: %v", from, to, err)
	}
}
