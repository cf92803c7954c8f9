//go:build !purego

package lowlevel

// Callers fills pcs with the return addresses of the frames above its
// caller's, the PCs that runtime.Callers(2, pcs) would give its caller,
// and returns how many it stored. It follows the frame-pointer chain, as
// the runtime's execution tracer does (callers_amd64.s): a few
// nanoseconds where runtime.Callers takes hundreds. It sees physical
// frames only: a call inlined into its caller has none of its own (which
// runtime.CallersFrames expands from the PCs), and the wrappers the
// compiler makes, such as a go statement's, which runtime.Callers leaves
// out, are there.
//
//go:noescape
func Callers(pcs []uintptr) int
