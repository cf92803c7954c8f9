package pml

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFifoRemoveKeepsOrder pushes and removes at random places, on both
// sides of the middle, and checks the entries against a plain slice, and
// that no slot outside the entries keeps a pointer alive.
func TestFifoRemoveKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	var q fifo[*int]
	var want []int
	for step := range 20000 {
		if len(want) == 0 || rng.IntN(5) < 3 {
			v := step
			q.push(&v)
			want = append(want, v)
		} else {
			i := rng.IntN(len(want))
			if rng.IntN(4) == 0 {
				i = rng.IntN(min(len(want), 3)) // near the front, as matches mostly are
			}
			q.remove(i)
			want = slices.Delete(want, i, i+1)
		}
		got := make([]int, 0, len(want))
		for _, p := range q.all() {
			got = append(got, *p)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: entries %v, want %v", step, got, want)
		}
		for k, p := range q.s[:q.head] {
			if p != nil {
				t.Fatalf("step %d: slot %d before the head still holds %d", step, k, *p)
			}
		}
		for k, p := range q.s[len(q.s):cap(q.s)] {
			if p != nil {
				t.Fatalf("step %d: slot %d past the end still holds %d", step, len(q.s)+k, *p)
			}
		}
	}
}

// TestMatchKeysMatchAsOneQueue runs one random sequence of messages,
// receives and probes on two engines, one matching in a single queue and
// one whose keys split its queues (and merge them back, on a wildcard or
// when the keys change), and checks that every receive and probe gets
// the same message on both.
func TestMatchKeysMatchAsOneQueue(t *testing.T) {
	for _, keys := range []MatchKeys{KeySource, KeyTag, KeySource | KeyTag} {
		t.Run(fmt.Sprint(keys), func(t *testing.T) {
			flat := newNet(t, 4, 1<<20, 1<<20).engines[1]
			keyed := newNet(t, 4, 1<<20, 1<<20).engines[1]
			keyed.SetMatchKeys(world, keys)
			rng := rand.New(rand.NewPCG(uint64(keys), 7))
			type pair struct {
				r, k *Request
				fb   []byte
				kb   []byte
			}
			var pending []pair
			id := uint64(0)
			splits := 0
			for op := range 6000 {
				from, tag := []int{0, 2, 3}[rng.IntN(3)], rng.IntN(40)
				// Phases of mostly messages and mostly receives make the
				// queues long enough to split.
				delivering := rng.IntN(100) < 70
				if (op/500)%2 == 1 {
					delivering = !delivering
				}
				switch x := rng.IntN(1000); {
				case x < 3: // the hints change
					k := MatchKeys(rng.IntN(4))
					keyed.SetMatchKeys(world, k)
				case x < 8: // a wildcard the keys may exclude
					src, tg := from, tag
					if rng.IntN(2) == 0 {
						src = AnySource
					} else {
						tg = AnyTag
					}
					fb, kb := make([]byte, 8), make([]byte, 8)
					pending = append(pending, pair{flat.Irecv(world, src, tg, fb), keyed.Irecv(world, src, tg, kb), fb, kb})
				case x < 60:
					var fs, ks Status
					fok, _ := flat.Iprobe(world, from, tag, &fs)
					kok, _ := keyed.Iprobe(world, from, tag, &ks)
					if fok != kok || fs != ks {
						t.Fatalf("op %d: probe of %d/%d: one queue %v %+v, keyed %v %+v", op, from, tag, fok, fs, kok, ks)
					}
				case delivering:
					id++
					payload := binary.LittleEndian.AppendUint64(nil, id)
					flat.Deliver(from, eagerFrom(from, tag), payload, false)
					keyed.Deliver(from, eagerFrom(from, tag), payload, false)
				default:
					fb, kb := make([]byte, 8), make([]byte, 8)
					pending = append(pending, pair{flat.Irecv(world, from, tag, fb), keyed.Irecv(world, from, tag, kb), fb, kb})
				}
				keyed.mu.Lock()
				if keyed.queue(world).keyed != nil {
					splits++
				}
				keyed.mu.Unlock()
				checkWaiting(t, flat)
				checkWaiting(t, keyed)
				left := pending[:0]
				for _, p := range pending {
					if p.r.Done() != p.k.Done() {
						t.Fatalf("op %d: a receive of %d/%d is done in one engine only (one queue %v)", op, p.r.peer, p.r.tag, p.r.Done())
					}
					if !p.r.Done() {
						left = append(left, p)
						continue
					}
					fs, ks := flat.Wait(p.r), keyed.Wait(p.k)
					if fs != ks || string(p.fb) != string(p.kb) {
						t.Fatalf("op %d: receive of %d/%d: one queue got %+v %x, keyed %+v %x", op, p.r.peer, p.r.tag, fs, p.fb, ks, p.kb)
					}
				}
				pending = left
			}
			if splits == 0 {
				t.Fatal("the keyed engine's queues never split: the test checks nothing")
			}
		})
	}
}

// BenchmarkPostedTags posts n receives of distinct tags from one peer,
// then delivers their messages in the reverse order: with one queue
// each message scans every receive posted before its own.
func BenchmarkPostedTags(b *testing.B) {
	for _, keys := range []MatchKeys{0, KeyTag} {
		for _, n := range []int{16, 256, 1024} {
			b.Run(fmt.Sprintf("keys=%d/n=%d", keys, n), func(b *testing.B) {
				order := make([]int, n)
				for i := range order {
					order[i] = n - 1 - i
				}
				benchPosted(b, keys, order)
			})
		}
	}
}

// BenchmarkPostedSwapped is BenchmarkPostedTags with the messages in
// swapped pairs (1, 0, 3, 2, ...): every other one matches the second
// receive waiting, as when a process that posted receives from many peers
// hears from them nearly in order.
func BenchmarkPostedSwapped(b *testing.B) {
	for _, n := range []int{256, 4096, 65536} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			order := make([]int, n)
			for i := range order {
				order[i] = i ^ 1
			}
			benchPosted(b, 0, order)
		})
	}
}

// benchPosted posts a receive for each tag of order on an engine matching
// with keys, delivers their messages in order, and reports the time a
// message.
func benchPosted(b *testing.B, keys MatchKeys, order []int) {
	n := len(order)
	e := newNet(b, 2, 1<<20, 1<<20).engines[1]
	e.SetMatchKeys(world, keys)
	hdrs := make([][]byte, n)
	for i := range hdrs {
		hdrs[i] = eagerFrom(0, i)
	}
	rs := make([]*Request, n)
	payload := fill(8, 1)
	b.ReportAllocs()
	for b.Loop() {
		for i := range rs {
			rs[i] = e.Irecv(world, 0, i, make([]byte, 8))
		}
		for _, i := range order {
			e.Deliver(0, hdrs[i], payload, false)
		}
		for _, r := range rs {
			e.Wait(r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
}

// checkWaiting fails t unless e's count of the messages that wait
// unmatched, which lets a probe that finds none skip the lock, is what
// its queues hold.
func checkWaiting(t *testing.T, e *Engine) {
	t.Helper()
	e.mu.Lock()
	n := 0
	e.eachQueue(func(q *queues) { n += len(q.unexpected.all()) })
	e.mu.Unlock()
	if w := e.waiting.Load(); w != int64(n) {
		t.Fatalf("the engine counts %d messages waiting unmatched; its queues hold %d", w, n)
	}
}
