package sm

// copyStreaming copies n bytes, a multiple of a line, from src to the
// line-aligned dst with non-temporal stores, fenced.
//
//go:noescape
func copyStreaming(dst, src *byte, n int)

const streaming = true
