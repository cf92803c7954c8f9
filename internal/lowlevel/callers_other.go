//go:build !amd64 || purego

package lowlevel

import "runtime"

// Callers fills pcs with the return addresses of the frames above its
// caller's and returns how many it stored: runtime.Callers from the frame
// above Callers' caller, the PCs the amd64 frame-pointer walk returns but
// for the compiler's wrappers, which runtime.Callers leaves out.
func Callers(pcs []uintptr) int { return runtime.Callers(3, pcs) }
