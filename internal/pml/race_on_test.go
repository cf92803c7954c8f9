//go:build race

package pml

// raceBuild: the race detector's sync.Pool drops items on purpose, so
// allocation counts mean nothing in such a build.
const raceBuild = true
