package sm

import (
	"context"
	"testing"
)

// TestFastPathDoesNotAllocate: in the steady state a fragment up to the
// eager limit goes through the ring, sent or posted and flushed, or
// packed by a Source of short or long blocks, and is delivered by a poll,
// without one allocation on either side.
func TestFastPathDoesNotAllocate(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector allocates on its own")
	}
	j := newTestJob(t, 2)
	var c [2]counter
	for r := range 2 {
		j.mods[r].recv = &c[r]
	}
	ctx := context.Background()
	hdr := make([]byte, 40)
	for _, size := range []int{0, 8, 1 << 10, j.mods[0].EagerLimit()} {
		for _, how := range []string{"send", "post", "short blocks", "long blocks"} {
			payload := make([]byte, size)
			for r := range 2 {
				c[r].buf = make([]byte, size)
			}
			block := 64
			if how == "long blocks" {
				block = 4096
			}
			src := newStrided(size, 0, block)
			hop := func(from int) {
				to := 1 - from
				want := c[to].n + 1
				if how == "short blocks" || how == "long blocks" {
					if err := j.mods[from].SendFrom(ctx, to, hdr, src, 0, size, false); err != nil {
						t.Fatal(err)
					}
				} else if how == "post" {
					if err := j.mods[from].Post(ctx, to, hdr, payload); err != nil {
						t.Fatal(err)
					}
					j.mods[from].Flush(to)
				} else if err := j.mods[from].Send(ctx, to, hdr, payload); err != nil {
					t.Fatal(err)
				}
				for c[to].n < want {
					j.mods[to].Progress()
				}
			}
			round := func() { hop(0); hop(1) }
			round()
			if n := testing.AllocsPerRun(1000, round); n != 0 {
				t.Errorf("%d bytes (%s): %v allocations a round trip", size, how, n)
			}
		}
	}
}
