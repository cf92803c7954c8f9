package prof

import "time"

// Clock converts Ticks readings to time: it keeps one reading of each
// clock as its zero and measures the ticks' rate against the wall clock
// over the time since, which grows more precise as a run goes on.
// Tools read Ticks on the hot path and convert off it.
type Clock struct {
	ticks0 int64
	wall0  time.Time
}

// NewClock returns a clock whose zero is now.
func NewClock() Clock { return Clock{ticks0: Ticks(), wall0: time.Now()} }

// Zero is the wall-clock time of the clock's zero.
func (c Clock) Zero() time.Time { return c.wall0 }

// Ticks0 is the Ticks reading of the clock's zero.
func (c Clock) Ticks0() int64 { return c.ticks0 }

// Rate is the nanoseconds per tick measured from the zero to now; 1 until
// the ticks have advanced.
func (c Clock) Rate() float64 { return TickRate(c.ticks0, Ticks(), time.Since(c.wall0)) }

// TickRate is the nanoseconds per tick over an interval that took wall
// time and tick1-tick0 ticks; 1 for an empty interval.
func TickRate(tick0, tick1 int64, wall time.Duration) float64 {
	if d := tick1 - tick0; d > 0 && wall > 0 {
		return float64(wall) / float64(d)
	}
	return 1
}
