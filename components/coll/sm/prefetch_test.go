package sm

import "testing"

// TestAheadOf: a reader prefetches the lines after the epoch word's own,
// up to the last one the data reaches, only for contributions that spill
// out of the first line and are at most prefetchMax bytes; such data
// starts on the second line.
func TestAheadOf(t *testing.T) {
	b := make([]byte, line+prefetchMax+line)
	for _, c := range []struct{ n, lines int }{
		{0, 0}, {line - offData, 0}, {line - offData + 1, 1}, {line, 1}, {line + 1, 2},
		{prefetchMax, prefetchMax / line}, {prefetchMax + 1, 0},
	} {
		got := aheadOf(b, c.n, c.n)
		if c.lines == 0 {
			if got != nil {
				t.Errorf("n=%d: prefetches %d bytes, want none", c.n, len(got))
			}
			continue
		}
		if &got[0] != &b[line] || len(got) != c.n {
			t.Errorf("n=%d: prefetches bytes %d-%d, want %d-%d", c.n, len(b)-cap(got), len(b)-cap(got)+len(got), line, line+c.n)
		}
		if l := (len(got) + line - 1) / line; l != c.lines {
			t.Errorf("n=%d: %d lines, want %d", c.n, l, c.lines)
		}
	}
}

// TestDataOff: a contribution that fits beside the epoch and length words
// shares their line; a larger one starts on the next line, and the block
// holds the largest after it.
func TestDataOff(t *testing.T) {
	for _, c := range []struct{ total, off int }{{0, offData}, {line - offData, offData}, {line - offData + 1, line}, {1 << 20, line}} {
		if got := dataOff(c.total); got != c.off {
			t.Errorf("dataOff(%d) = %d, want %d", c.total, got, c.off)
		}
	}
	for _, maxBytes := range []int{1, 48, 49, 100, 4096, 256 << 10} {
		if l := newLayout(2, maxBytes); dataOff(maxBytes)+maxBytes > l.stride || l.stride%line != 0 {
			t.Errorf("maxBytes %d: a block of %d bytes does not hold its data from %d, or is not whole lines", maxBytes, l.stride, dataOff(maxBytes))
		}
	}
}
