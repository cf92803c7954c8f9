package main

import "testing"

func TestThreadLevel(t *testing.T) {
	single, funneled, serialized, multiple := threadLevels[0], threadLevels[1], threadLevels[2], threadLevels[3]
	for _, c := range []struct{ required, want int }{
		{single, single}, {funneled, funneled}, {serialized, serialized}, {multiple, multiple},
		{single - 1, single}, {funneled + 1, serialized}, {multiple + 1, multiple},
	} {
		if got := threadLevel(c.required); got != c.want {
			t.Errorf("threadLevel(%d) = %d, want %d", c.required, got, c.want)
		}
	}
}
