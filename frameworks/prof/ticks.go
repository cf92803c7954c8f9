package prof

import "github.com/gompi/gompi/internal/lowlevel"

// Ticks reads the tick clock that a Clock converts (lowlevel.Ticks).
func Ticks() int64 { return lowlevel.Ticks() }
