//go:build !amd64

package stats

import "runtime"

// callers is runtime.Callers from the frame above callers' caller, the
// frames the amd64 frame-pointer walk returns.
func callers(pcs []uintptr) int { return runtime.Callers(3, pcs) }
