//go:build race

package launch

// raceBuild makes TestMain build gompirun and the rank program with the
// race detector too, so the launcher is checked in real jobs.
const raceBuild = true
