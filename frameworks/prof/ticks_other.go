//go:build !amd64

package prof

import "time"

// epoch anchors Ticks, the monotonic clock in nanoseconds on platforms
// without a cheap cycle counter here.
var epoch = time.Now()

// Ticks reads the monotonic clock, in nanoseconds since the process began.
func Ticks() int64 { return int64(time.Since(epoch)) }
