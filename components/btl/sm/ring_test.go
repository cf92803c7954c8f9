package sm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/components/common/shm"
)

// newRing makes a ring in ordinary memory; its producer's ring the other
// way is never read.
func newRing(size int) (producer, consumer) {
	r := ring{head: new(atomic.Uint64), reads: new(shm.ReadCosts), data: make([]byte, size)}
	return producer{ring: r, answered: new(atomic.Uint64), w: shm.Writer{Readers: r.reads}}, consumer{ring: r, from: 7}
}

// sink records deliveries.
type sink struct {
	frags  []string
	failed error
}

func (s *sink) Place(int, []byte, int) []byte { return nil }
func (s *sink) Deliver(from int, hdr, payload []byte, _ bool) {
	s.frags = append(s.frags, fmt.Sprintf("%d:%s:%s", from, hdr, payload))
}
func (s *sink) PeerFailed(_ int, err error) { s.failed = err }

func TestRingWrapsWithPadding(t *testing.T) {
	p, c := newRing(256)
	var s sink
	var want []string
	for i := range 100 {
		// Sizes that leave odd gaps at the end of the ring, and put
		// records where an earlier lap had payload: its bytes would read
		// as a record's end offset had put not zeroed them.
		hdr := []byte(fmt.Sprintf("h%d", i))
		payload := bytes.Repeat([]byte{'a' + byte(i%26)}, i%50)
		if !p.putNow(hdr, payload) {
			t.Fatalf("put %d: no room in an empty ring", i)
		}
		want = append(want, fmt.Sprintf("7:%s:%s", hdr, payload))
		if n, err := c.drain(&s); err != nil || n != 1 {
			t.Fatalf("drain after put %d: %d records, %v", i, n, err)
		}
	}
	if !slices.Equal(s.frags, want) {
		t.Fatalf("delivered %q, want %q", s.frags, want)
	}
}

// TestRingTimesTheWritersTimedCopies: the consumer times its delivery of
// each record whose payload the producer's Writer timed, and records it
// in the ring's shm.ReadCosts for that copy's class and way: after a
// round of timed copies of each class, every way of both has a time.
// Payloads, timed or not, arrive whole.
func TestRingTimesTheWritersTimedCopies(t *testing.T) {
	p, c := newRing(1 << 20)
	var s sink
	for i := range 12 {
		n := shm.WriterMin + 100
		if i%2 == 1 {
			n = 20 << 10 // a large copy's class
		}
		payload := bytes.Repeat([]byte{'a' + byte(i)}, n)
		if !p.putNow([]byte{'h'}, payload) {
			t.Fatalf("put %d: no room", i)
		}
		if k, err := c.drain(&s); err != nil || k != 1 {
			t.Fatalf("drain after put %d: %d records, %v", i, k, err)
		}
		if want := fmt.Sprintf("7:h:%s", payload); s.frags[i] != want {
			t.Fatalf("record %d: delivered %d bytes, want %d of %q", i, len(s.frags[i]), len(want), payload[0])
		}
	}
	for k := range c.reads {
		for way := range c.reads[k] {
			if c.reads[k][way].Load() == 0 {
				t.Errorf("class %d, way %d: no time recorded (%v)", k, way, c.reads)
			}
		}
	}
}

// putNow puts a record and publishes it at once, as Send does.
func (p *producer) putNow(hdr, payload []byte) bool {
	ok := p.put(hdr, payload, false)
	p.publish()
	return ok
}

// TestRingStagedUntilPublished: records that put staged are invisible to
// the consumer until publish, which shows them all, in order.
func TestRingStagedUntilPublished(t *testing.T) {
	p, c := newRing(4096)
	var s sink
	for i := range 3 {
		if !p.put([]byte{'h'}, []byte{byte('a' + i)}, true) {
			t.Fatalf("put %d", i)
		}
		if n, err := c.drain(&s); n != 0 || err != nil {
			t.Fatalf("drained %d records (%v) before they were published", n, err)
		}
	}
	p.publish()
	if n, err := c.drain(&s); n != 3 || err != nil {
		t.Fatalf("drained %d records (%v) after publishing 3", n, err)
	}
	if want := []string{"7:h:a", "7:h:b", "7:h:c"}; !slices.Equal(s.frags, want) {
		t.Fatalf("delivered %q, want %q", s.frags, want)
	}
}

func TestRingFullUntilDrained(t *testing.T) {
	p, c := newRing(512)
	payload := make([]byte, 48) // records of 16+1+48 -> 128 bytes
	n := 0
	for p.putNow([]byte{'x'}, payload) {
		n++
	}
	if n != 3 { // one line stays free
		t.Fatalf("%d records of 128 bytes fit a 512-byte ring, want 3", n)
	}
	var s sink
	if k, err := c.drain(&s); err != nil || k != 3 {
		t.Fatalf("drained %d, %v", k, err)
	}
	if !p.putNow([]byte{'x'}, payload) {
		t.Fatal("no room after draining")
	}
}

func TestRingRefusesMalformedRecords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(data []byte)
		want    string
	}{
		{"unaligned length", func(d []byte) { d[0] = 33 }, "does not fit"},
		{"longer than the ring", func(d []byte) { d[1] = 9 }, "does not fit"},
		{"unknown kind", func(d []byte) { d[10] = 9 }, "unknown kind"},
		{"header longer than record", func(d []byte) { d[8] = 200 }, "in a record of"},
		{"pad before the end", func(d []byte) { d[10] = kindPad }, "does not reach the end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := newRing(256)
			if !p.putNow([]byte("hdr"), []byte("payload")) {
				t.Fatal("put")
			}
			tc.corrupt(p.data)
			var s sink
			_, err := c.drain(&s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("drain: %v, want an error with %q", err, tc.want)
			}
			if len(s.frags) != 0 {
				t.Fatalf("delivered %q from a malformed ring", s.frags)
			}
		})
	}
}

func FuzzRingDrain(f *testing.F) {
	p, _ := newRing(256)
	p.putNow([]byte("h"), []byte("p"))
	f.Add(slices.Clone(p.data[:64]), uint16(48))
	f.Fuzz(func(t *testing.T, data []byte, head uint16) {
		_, c := newRing(256)
		copy(c.data, data)
		c.head = uint64(head) % 1024 &^ (recAlign - 1)
		var s sink
		_, _ = c.drain(&s) // must not panic, whatever the bytes
	})
}

// TestRingNeverReadsStaleBytes fills rings with payloads whose every word
// would pass for a record's end offset, in records of random sizes drained
// at random moments, so that records start where earlier laps left payload.
func TestRingNeverReadsStaleBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{512, 4096, 16 << 10} {
		p, c := newRing(size)
		var s sink
		var want []string
		for i := range 20000 {
			if rng.IntN(3) == 0 {
				if _, err := c.drain(&s); err != nil {
					t.Fatalf("ring of %d, step %d: %v", size, i, err)
				}
				continue
			}
			hdr := []byte(fmt.Sprintf("h%d", i))
			payload := bytes.Repeat([]byte{0xff}, rng.IntN(size/2-2*recAlign))
			// Staged records stay unpublished for a random while, as
			// Post leaves them: drains meanwhile must not see them.
			if p.put(hdr, payload, rng.IntN(2) == 0) {
				want = append(want, fmt.Sprintf("7:%s:%s", hdr, payload))
			}
			if rng.IntN(4) == 0 {
				p.publish()
			}
		}
		p.publish()
		if _, err := c.drain(&s); err != nil {
			t.Fatalf("ring of %d, last drain: %v", size, err)
		}
		if len(s.frags) != len(want) || !slices.Equal(s.frags, want) {
			t.Fatalf("ring of %d: delivered %d records, want %d (or they differ)", size, len(s.frags), len(want))
		}
	}
}

// TestRingPrefetchesWhatTheLastRecordFilled checks what the consumer
// prefetches while it polls: the lines after the first that the last
// record filled, none after a record of one line or of more than
// maxAhead more.
func TestRingPrefetchesWhatTheLastRecordFilled(t *testing.T) {
	p, c := newRing(1 << 16)
	var s sink
	hdr := []byte("hdr")
	for _, tc := range []struct{ payload, ahead int }{
		{0, 0},
		{recAlign - recHeader - len(hdr), 0}, // one line, full
		{recAlign, 1},
		{3 * recAlign, 3},
		{maxAhead * recAlign, maxAhead},
		{(maxAhead + 1) * recAlign, 0},
		{8, 0},
	} {
		if !p.put(hdr, make([]byte, tc.payload), false) {
			t.Fatal("the ring is full")
		}
		p.publish()
		if !c.pending() {
			t.Fatalf("payload %d: no record pending", tc.payload)
		}
		if _, err := c.drain(&s); err != nil {
			t.Fatal(err)
		}
		if got := c.ahead.Load(); int(got) != tc.ahead {
			t.Errorf("after a record of %d payload bytes (%d lines), ahead = %d, want %d",
				tc.payload, recordSize(len(hdr), tc.payload)/recAlign, got, tc.ahead)
		}
		if c.pending() {
			t.Fatalf("payload %d: a record pending after the drain", tc.payload)
		}
	}
}

// TestRingReservesWhereTheNextRecordGoes: after each record the producer's
// hint names the offset of the next one and, if the record was small, its
// line count; reserve then prefetches exactly those lines of the ring.
func TestRingReservesWhereTheNextRecordGoes(t *testing.T) {
	p, _ := newRing(1024)
	hdr := []byte("hdr")
	for i, tc := range []struct{ payload, lines int }{
		{0, 1},
		{recAlign, 2},
		{(reserveLines - 1) * recAlign, reserveLines},
		{reserveLines * recAlign, 0}, // more lines than reserve takes
		{8, 1},
		{400, 0}, // pads to the ring's start: the hint follows the wrap
		{8, 1},
	} {
		if !p.putNow(hdr, make([]byte, tc.payload)) {
			t.Fatalf("record %d: the ring is full", i)
		}
		h := p.next.Load()
		if got := int(h & (recAlign - 1)); got != tc.lines {
			t.Errorf("record %d (%d payload bytes): hint of %d lines, want %d", i, tc.payload, got, tc.lines)
		}
		want := p.tail & uint64(len(p.data)-1)
		if tc.lines == 0 {
			want = 0 // no hint at all
		}
		if got := h &^ (recAlign - 1); got != want {
			t.Errorf("record %d: hint offset %d, want %d", i, got, want)
		}
		p.reserve() // prefetches only: must stay inside the ring
		p.head.Store(p.tail)
		p.headCache = p.tail
	}
}

// TestRingTellsAnAnswerFromACrossedMessage: two ranks' rings both ways,
// over a few laps. A record written after its producer drained the other's
// last record answers it; one written before (both ranks sending at once,
// as in Sendrecv) does not.
func TestRingTellsAnAnswerFromACrossedMessage(t *testing.T) {
	ab, atB := newRing(1024)
	ba, atA := newRing(1024)
	ab.answered, ba.answered = ba.head, ab.head // each producer's own consumer stores the other ring's head
	var s sink
	// receive checks whether c takes its next record for an answer to
	// out's last one (out: c's rank's producer the other way), then
	// drains it.
	receive := func(c *consumer, out *producer, i int, what string, answer bool) {
		t.Helper()
		if !c.pending() {
			t.Fatalf("round %d: %s not seen", i, what)
		}
		if got := c.answers(out.next.Load()); got != answer {
			t.Errorf("round %d: %s taken for an answer: %t, want %t", i, what, got, answer)
		}
		if n, err := c.drain(&s); err != nil || n != 1 {
			t.Fatalf("round %d: %s drained as %d records, %v", i, what, n, err)
		}
	}
	payload := make([]byte, 8)
	for i := range 40 {
		// A ping-pong: each record written after its producer read the
		// other's last one.
		ab.putNow([]byte("ping"), payload)
		receive(&atB, &ba, i, "the ping", true)
		ba.putNow([]byte("pong"), payload)
		receive(&atA, &ab, i, "the pong", true)
		// An exchange: both write before either reads.
		ab.putNow([]byte("x"), payload)
		ba.putNow([]byte("y"), payload)
		receive(&atA, &ab, i, "b's crossed record", false)
		receive(&atB, &ba, i, "a's crossed record", false)
	}
}

// TestRingCarriesLargeRecords: records large enough for the producer's
// shm.Writer to choose its copy, behind headers of every length (so their
// payloads start anywhere in a line), arrive intact, whichever copy it
// took (shm's tests cover each).
func TestRingCarriesLargeRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p, c := newRing(1 << 17)
	var s sink
	var want []string
	for i := range 200 {
		hdr := bytes.Repeat([]byte{'h'}, 1+i%maxHeader)
		payload := make([]byte, shm.WriterMin-recAlign+rng.IntN(3*recAlign+shm.WriterMin/2))
		for j := range payload {
			payload[j] = 'a' + byte(rng.IntN(26))
		}
		if !p.putNow(hdr, payload) {
			t.Fatalf("put %d: no room in a drained ring", i)
		}
		want = append(want, fmt.Sprintf("7:%s:%s", hdr, payload))
		if n, err := c.drain(&s); err != nil || n != 1 {
			t.Fatalf("drain after put %d: %d records, %v", i, n, err)
		}
	}
	if !slices.Equal(s.frags, want) {
		t.Fatal("delivered records differ from those put")
	}
}
