package sm

import "testing"

// TestAheadOf: a reader prefetches the lines after the epoch word's own,
// up to the last one the data reaches, only for contributions that spill
// out of the first line and are at most prefetchMax bytes.
func TestAheadOf(t *testing.T) {
	b := make([]byte, offData+prefetchMax+line)
	for _, c := range []struct{ n, lines int }{
		{0, 0}, {line - offData, 0}, {line - offData + 1, 1}, {2*line - offData, 1},
		{2*line - offData + 1, 2}, {prefetchMax, (offData + prefetchMax - 1) / line}, {prefetchMax + 1, 0},
	} {
		got := aheadOf(b, c.n)
		if c.lines == 0 {
			if got != nil {
				t.Errorf("n=%d: prefetches %d bytes, want none", c.n, len(got))
			}
			continue
		}
		if &got[0] != &b[line] || len(got) != offData+c.n-line {
			t.Errorf("n=%d: prefetches bytes %d-%d, want %d-%d", c.n, len(b)-cap(got), len(b)-cap(got)+len(got), line, offData+c.n)
		}
		if l := (len(got) + line - 1) / line; l != c.lines {
			t.Errorf("n=%d: %d lines, want %d", c.n, l, c.lines)
		}
	}
}
