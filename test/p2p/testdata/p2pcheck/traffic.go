package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/gompi/gompi/mpi"
)

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

// stress: on every rank, four goroutines each exchange messages of mixed
// sizes with the same goroutine of every other rank at once, on tags of
// their own; every message is checked.
func stress(w mpi.Comm) error {
	const goroutines, rounds = 4, 40
	sizes := []int{0, 7, 4096, 20_000, 70_000, 300_000}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				var reqs []mpi.Request
				var ins [][]byte
				var ids []uint64
				for peer := range w.Size() {
					if peer == w.Rank() {
						continue
					}
					n := sizes[(round+g+peer+w.Rank())%len(sizes)] // the same on both sides
					in := make([]byte, n)
					r, err := mpi.Irecv(in, peer, g, w)
					if err != nil {
						errs <- err
						return
					}
					reqs = append(reqs, r)
					ins = append(ins, in)
					ids = append(ids, uint64(peer<<20|g<<12|round))
					out := make([]byte, n)
					pattern(out, uint64(w.Rank()<<20|g<<12|round))
					s, err := mpi.Isend(out, peer, g, w)
					if err != nil {
						errs <- err
						return
					}
					reqs = append(reqs, s)
				}
				if err := mpi.WaitAll(reqs...); err != nil {
					errs <- err
					return
				}
				for i, in := range ins {
					if err := checkPattern(in, ids[i]); err != nil {
						errs <- fmt.Errorf("goroutine %d round %d: %w", g, round, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
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
