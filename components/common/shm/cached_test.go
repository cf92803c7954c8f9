package shm

import (
	"bytes"
	"testing"
)

func TestCopyCachedIsCopy(t *testing.T) {
	src := make([]byte, 3*cachedPiece+25)
	for i := range src {
		src[i] = byte(i*7 + i>>11)
	}
	for _, c := range []struct{ dst, src int }{
		{0, 0}, {1, 1}, {0, 5}, {5, 0},
		{cachedPiece - 1, cachedPiece - 1}, {cachedPiece, cachedPiece}, {cachedPiece + 1, cachedPiece + 1},
		{2*cachedPiece + 3, len(src)}, {len(src), 2*cachedPiece + 3}, {len(src) + 9, len(src)},
	} {
		want := make([]byte, c.dst+8)
		got := make([]byte, c.dst+8)
		for i := range want {
			want[i], got[i] = 0xA5, 0xA5
		}
		wn := copy(want[:c.dst], src[:c.src])
		gn := CopyCached(got[:c.dst], src[:c.src])
		if gn != wn || !bytes.Equal(got, want) {
			t.Errorf("CopyCached of %d bytes into %d: returned %d (copy %d), contents equal: %v",
				c.src, c.dst, gn, wn, bytes.Equal(got, want))
		}
	}
}
