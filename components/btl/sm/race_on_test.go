//go:build race

package sm

// raceBuild: the race detector's sync.Pool drops items on purpose, so
// allocation counts mean nothing in such a build.
const raceBuild = true
