package sm

// copyString copies n bytes from src to dst with a string instruction,
// fenced.
//
//go:noescape
func copyString(dst, src *byte, n int)
