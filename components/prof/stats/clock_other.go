//go:build !amd64

package stats

import (
	"runtime"
	"time"
)

// epoch anchors ticks, the monotonic clock in nanoseconds on platforms
// without a cheap cycle counter here.
var epoch = time.Now()

func ticks() int64 { return int64(time.Since(epoch)) }

// callers is runtime.Callers from the frame above callers' caller, the
// frames the amd64 frame-pointer walk returns.
func callers(pcs []uintptr) int { return runtime.Callers(3, pcs) }
