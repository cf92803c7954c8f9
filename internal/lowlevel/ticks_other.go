//go:build !amd64 || purego

package lowlevel

import "time"

// epoch anchors Ticks, the monotonic clock in nanoseconds on architectures
// without a cycle counter read here. Set once, at init.
var epoch = time.Now()

// Ticks reads the monotonic clock, in nanoseconds since the process began.
func Ticks() int64 { return int64(time.Since(epoch)) }
