//go:build !linux

package pmpi

// setSchedSlice does nothing where the kernel has no per-thread slice.
func setSchedSlice(int) error { return nil }
