package btltest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
)

// startVector is start with VectorReceivers; it skips t unless the
// modules are btl.VectorSenders.
func (s Suite) startVector(t *testing.T) (*job, []*VectorReceiver) {
	t.Helper()
	envs, recvs := Envs(t, s.Size)
	vrs := make([]*VectorReceiver, s.Size)
	for rank := range envs {
		vrs[rank] = &VectorReceiver{Receiver: recvs[rank], placed: map[int][][]byte{}, counted: map[int]int{}}
		envs[rank].Receiver = vrs[rank]
	}
	mods := s.New(t, envs)
	if len(mods) != s.Size {
		t.Fatalf("btltest: the factory made %d modules for %d ranks", len(mods), s.Size)
	}
	for _, m := range mods {
		t.Cleanup(func() { m.Finalize() })
	}
	for rank, m := range mods {
		if _, ok := m.(btl.VectorSender); !ok {
			if rank == 0 {
				t.Skip("the module is no btl.VectorSender")
			}
			t.Fatalf("rank %d: the module is no btl.VectorSender, rank 0's is", rank)
		}
	}
	j := &job{s: s, mods: mods, recvs: recvs, procs: Procs(s.Size)}
	for from, m := range mods {
		reach, err := m.AddProcs(context.Background(), j.procs)
		if err != nil {
			t.Fatalf("rank %d: AddProcs: %v", from, err)
		}
		for to, ok := range reach {
			if ok != s.Reaches(from, to) {
				t.Fatalf("rank %d: AddProcs says it reaches rank %d: %v; want %v", from, to, ok, !ok)
			}
		}
	}
	return j, vrs
}

// cut splits b into parts of the given sizes, which add up to len(b).
func cut(b []byte, sizes []int) [][]byte {
	parts := make([][]byte, len(sizes))
	for i, n := range sizes {
		parts[i], b = b[:n:n], b[n:]
	}
	return parts
}

// layouts are the ways of cutting a payload that matter to a module
// that writes parts with vectored system calls, largest last.
func layouts(maxSend int) [][]int {
	many := make([]int, 1500) // more than one call's IOV_MAX, empty ones among them
	for i := range many {
		many[i] = i * 7 % 41
	}
	big := min(maxSend, 4<<20)
	return [][]int{
		nil,
		{0},
		{1},
		{0, 5, 0, 0, 3, 0},
		many,
		{big / 3, 0, big - big/3},
	}
}

func sum(sizes []int) int {
	n := 0
	for _, k := range sizes {
		n += k
	}
	return n
}

// testVectorParts sends every layout, each between two Sends, on every
// pair, writing over the parts once SendVector returns.
func (s Suite) testVectorParts(t *testing.T) {
	j, _ := s.startVector(t)
	ctx := context.Background()
	const hlen = 24
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		m := j.mods[from]
		seq := 0
		for _, sizes := range layouts(m.MaxSendSize()) {
			if err := m.Send(ctx, to, header(from, 2, seq, hlen), payload(from, 2, seq, 3)); err != nil {
				t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
			}
			seq++
			parts := cut(payload(from, 2, seq, sum(sizes)), sizes)
			if err := m.(btl.VectorSender).SendVector(ctx, to, header(from, 2, seq, hlen), parts); err != nil {
				t.Fatalf("rank %d: SendVector to rank %d of %d bytes in %d parts: %v", from, to, sum(sizes), len(parts), err)
			}
			for _, part := range parts {
				for i := range part {
					part[i] = 0xee
				}
			}
			seq++
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		ls := layouts(j.mods[from].MaxSendSize())
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= 2*len(ls) })
		fs := r.From(from)
		if len(fs) != 2*len(ls) {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, 2*len(ls))
		}
		for seq, f := range fs {
			n := 3
			if seq%2 == 1 {
				n = sum(ls[seq/2])
			}
			check(t, f, header(from, 2, seq, hlen), n, from, 2, seq)
		}
	}
}

// testVectorRefused: more than MaxSendSize bytes in all, or a bad header,
// is refused with an error that names the peer, and nothing arrives.
func (s Suite) testVectorRefused(t *testing.T) {
	j, _ := s.startVector(t)
	ctx := context.Background()
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		m := j.mods[from]
		v := m.(btl.VectorSender)
		half := m.MaxSendSize()/2 + 1
		big := [][]byte{make([]byte, half), nil, make([]byte, m.MaxSendSize()+1-half)}
		err := v.SendVector(ctx, to, header(from, 3, 0, 16), big)
		if err == nil {
			t.Fatalf("rank %d: SendVector to rank %d of %d bytes succeeded; MaxSendSize is %d", from, to, m.MaxSendSize()+1, m.MaxSendSize())
		}
		namesPeer(t, from, to, err)
		for _, n := range []int{0, btl.MaxHeaderSize + 1} {
			err := v.SendVector(ctx, to, make([]byte, n), [][]byte{[]byte("x")})
			if err == nil {
				t.Fatalf("rank %d: SendVector to rank %d with a %d-byte header succeeded; headers are 1-%d bytes", from, to, n, btl.MaxHeaderSize)
			}
			namesPeer(t, from, to, err)
		}
		// A fragment sent after the refusals is the only one to arrive.
		if err := m.Send(ctx, to, header(from, 3, 0, 16), payload(from, 3, 0, 5)); err != nil {
			t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: the fragment from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= 1 })
		fs := r.From(from)
		if len(fs) != 1 {
			t.Fatalf("rank %d: %d fragments from rank %d; the refused ones arrived", to, len(fs), from)
		}
		check(t, fs[0], header(from, 3, 0, 16), 5, from, 3, 0)
	}
}

// testVectorAfterPosts posts small fragments, which a btl.Poster may
// hold back, then sends a vector: it must arrive after them.
func (s Suite) testVectorAfterPosts(t *testing.T) {
	const posts, hlen = 5, 16
	j, _ := s.startVector(t)
	if _, ok := j.mods[0].(btl.Poster); !ok {
		t.Skip("the module is no btl.Poster")
	}
	ctx := context.Background()
	sizes := []int{7, 0, 9000, 1}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		m := j.mods[from]
		for seq := range posts {
			if err := m.(btl.Poster).Post(ctx, to, header(from, 4, seq, hlen), payload(from, 4, seq, 8)); err != nil {
				t.Fatalf("rank %d: Post to rank %d: %v", from, to, err)
			}
		}
		parts := cut(payload(from, 4, posts, sum(sizes)), sizes)
		if err := m.(btl.VectorSender).SendVector(ctx, to, header(from, 4, posts, hlen), parts); err != nil {
			t.Fatalf("rank %d: SendVector to rank %d: %v", from, to, err)
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= posts+1 })
		fs := r.From(from)
		if len(fs) != posts+1 {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, posts+1)
		}
		for seq, f := range fs {
			n := 8
			if seq == posts {
				n = sum(sizes)
			}
			check(t, f, header(from, 4, seq, hlen), n, from, 4, seq)
		}
	}
}

// Placed fragments carry a mark in the byte after the 12 of header's
// fields: what the test's PlaceVector does with them.
const (
	placeNone  = iota // leave the payload to Place
	placeRight        // slices that add up to the payload
	placeShort        // slices a byte short: the module must not use them
	placeLong         // slices a byte too long: neither
)

// scattered is the memory a receiver places one payload in: slices of
// odd lengths with poisoned gaps between them in one buffer, so that a
// write past a slice shows.
type scattered struct {
	buf   []byte
	parts [][]byte
}

// scatter returns slices for size bytes, cut every stride bytes, whose
// lengths add up to size+delta.
func scatter(size, stride, delta int) scattered {
	const gap = 3
	total := size + delta
	sc := scattered{buf: bytes.Repeat([]byte{poison}, total+(total/stride+1)*gap)}
	off := 0
	for left := total; left > 0; {
		n := min(stride, left)
		sc.parts = append(sc.parts, sc.buf[off:off+n:off+n])
		off += n + gap
		left -= n
	}
	return sc
}

// gapsPoisoned reports whether nothing was written between the slices.
func (sc scattered) gapsPoisoned() bool {
	off := 0
	for _, p := range sc.parts {
		off += len(p)
		for i := off; i < min(off+3, len(sc.buf)); i++ {
			if sc.buf[i] != poison {
				return false
			}
		}
		off += 3
	}
	return true
}

// testVectorPlaced sends payloads whose receiver places them in slices
// (more than IOV_MAX of them for the largest), in slices of the wrong
// total, or not at all, by SendVector and by Send.
func (s Suite) testVectorPlaced(t *testing.T) {
	const hlen = 16
	j, vrs := s.startVector(t)
	ctx := context.Background()
	type plan struct{ size, stride, how int }
	plans := func(maxSend int) []plan {
		big := min(maxSend, 2<<20)
		return []plan{
			{5000, 700, placeRight},
			{big, big / 1500, placeRight}, // more slices than one readv takes
			{64 << 10, 999, placeShort},
			{64 << 10, 999, placeLong},
			{64 << 10, 0, placeNone},
			{300, 7, placeRight},
			{70 << 10, 4093, placeRight},
		}
	}
	// Per receiver and sender, the memory of each placed fragment, by sequence.
	type key struct{ to, from, seq int }
	var mu sync.Mutex
	places := map[key]scattered{}
	placed := func(k key) scattered {
		mu.Lock()
		defer mu.Unlock()
		return places[k]
	}
	for to, vr := range vrs {
		vr.PlaceVectorFunc = func(from int, hdr []byte, size int, parts [][]byte) [][]byte {
			seq := int(hdr[8]) | int(hdr[9])<<8
			pl := plans(j.mods[from].MaxSendSize())[seq/2]
			if len(hdr) != hlen || size != pl.size || pl.how == placeNone {
				return parts
			}
			delta := 0
			switch pl.how {
			case placeShort:
				delta = -1
			case placeLong:
				delta = 1
			}
			sc := scatter(size, pl.stride, delta)
			mu.Lock()
			places[key{to, from, seq}] = sc
			mu.Unlock()
			return append(parts, sc.parts...)
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		m := j.mods[from]
		for i, pl := range plans(m.MaxSendSize()) {
			seq := 2 * i
			parts := cut(payload(from, 5, seq, pl.size), []int{pl.size / 2, 0, pl.size - pl.size/2})
			if err := m.(btl.VectorSender).SendVector(ctx, to, header(from, 5, seq, hlen), parts); err != nil {
				t.Fatalf("rank %d: SendVector to rank %d: %v", from, to, err)
			}
			if err := m.Send(ctx, to, header(from, 5, seq+1, hlen), payload(from, 5, seq+1, pl.size)); err != nil {
				t.Fatalf("rank %d: Send to rank %d: %v", from, to, err)
			}
		}
	}
	for _, p := range j.pairs() {
		from, to := p[0], p[1]
		ps := plans(j.mods[from].MaxSendSize())
		r := j.recvs[to]
		r.WaitFor(t, fmt.Sprintf("rank %d: fragments from rank %d", to, from), j.poll,
			func() bool { return len(r.From(from)) >= 2*len(ps) })
		fs := r.From(from)
		if len(fs) != 2*len(ps) {
			t.Fatalf("rank %d: %d fragments from rank %d, sent %d", to, len(fs), from, 2*len(ps))
		}
		for seq, f := range fs {
			pl := ps[seq/2]
			want := payload(from, 5, seq, pl.size)
			if !bytes.Equal(f.Hdr, header(from, 5, seq, hlen)) {
				t.Fatalf("rank %d: fragment %d from rank %d: wrong header", to, seq, from)
			}
			if !f.Vectored {
				if !bytes.Equal(f.Payload, want) {
					t.Fatalf("rank %d: fragment %d from rank %d: payload of %d bytes differs from the %d sent", to, seq, from, len(f.Payload), pl.size)
				}
				continue
			}
			if pl.how != placeRight {
				t.Fatalf("rank %d: fragment %d from rank %d delivered in slices whose lengths add up to %d bytes, not its %d",
					to, seq, from, len(f.Payload), pl.size)
			}
			if f.Size != pl.size {
				t.Fatalf("rank %d: DeliverVector of fragment %d from rank %d says %d bytes; it has %d", to, seq, from, f.Size, pl.size)
			}
			sc := placed(key{to, from, seq})
			if !bytes.Equal(f.Payload, want) {
				t.Fatalf("rank %d: fragment %d from rank %d: its %d slices do not hold the %d bytes sent", to, seq, from, len(sc.parts), pl.size)
			}
			if !sc.gapsPoisoned() {
				t.Fatalf("rank %d: fragment %d from rank %d: written past the end of a slice", to, seq, from)
			}
		}
	}
}
