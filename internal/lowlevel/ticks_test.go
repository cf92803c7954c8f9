package lowlevel_test

import (
	"testing"
	"time"

	"github.com/gompi/gompi/internal/lowlevel"
)

// Ticks never goes back on one goroutine, and advances while time passes.
func TestTicksAdvance(t *testing.T) {
	t0, w0 := lowlevel.Ticks(), time.Now()
	prev := t0
	for time.Since(w0) < time.Millisecond {
		now := lowlevel.Ticks()
		if now < prev {
			t.Fatalf("Ticks went back from %d to %d", prev, now)
		}
		prev = now
	}
	if t1 := lowlevel.Ticks(); t1 <= t0 {
		t.Fatalf("Ticks %d a millisecond after %d", t1, t0)
	}
}
