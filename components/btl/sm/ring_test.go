package sm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// newRing makes a ring in ordinary memory.
func newRing(size int) (producer, consumer) {
	r := ring{tail: new(atomic.Uint64), head: new(atomic.Uint64), data: make([]byte, size)}
	return producer{ring: r}, consumer{ring: r, from: 7}
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
		// Sizes that leave odd gaps at the end of the ring.
		hdr := []byte(fmt.Sprintf("h%d", i))
		payload := bytes.Repeat([]byte{'a' + byte(i%26)}, i%50)
		if !p.put(hdr, payload) {
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

func TestRingFullUntilDrained(t *testing.T) {
	p, c := newRing(256)
	payload := make([]byte, 48) // records of 16+1+48 -> 80 bytes
	n := 0
	for p.put([]byte{'x'}, payload) {
		n++
	}
	if n != 3 {
		t.Fatalf("%d records of 80 bytes fit a 256-byte ring, want 3", n)
	}
	var s sink
	if k, err := c.drain(&s); err != nil || k != 3 {
		t.Fatalf("drained %d, %v", k, err)
	}
	if !p.put([]byte{'x'}, payload) {
		t.Fatal("no room after draining")
	}
}

func TestRingRefusesMalformedRecords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(data []byte)
		want    string
	}{
		{"zero length", func(d []byte) { d[0], d[1] = 0, 0 }, "does not fit"},
		{"unaligned length", func(d []byte) { d[0] = 33 }, "does not fit"},
		{"unknown kind", func(d []byte) { d[6] = 9 }, "unknown kind"},
		{"header longer than record", func(d []byte) { d[4] = 200 }, "in a record of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := newRing(256)
			if !p.put([]byte("hdr"), []byte("payload")) {
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
	p.put([]byte("h"), []byte("p"))
	f.Add(slices.Clone(p.data[:64]), uint16(48))
	f.Fuzz(func(t *testing.T, data []byte, tail uint16) {
		_, c := newRing(256)
		copy(c.data, data)
		c.ring.tail.Store(uint64(tail) % 1024)
		var s sink
		_, _ = c.drain(&s) // must not panic, whatever the bytes
	})
}
