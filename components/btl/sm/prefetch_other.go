//go:build !amd64

package sm

// prefetch does nothing where there is no prefetch instruction to call.
func prefetch(*byte) {}
