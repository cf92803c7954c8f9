//go:build race

package main

// raceEnabled: the race detector's bookkeeping allocates, so allocation
// counts mean nothing.
const raceEnabled = true
