// Command p2pcheck runs one point-to-point scenario on every rank of a
// gompirun job and prints "ok <scenario> rank <r>" when the rank's checks
// pass; a failed check prints FAIL and exits 1. The tests in test/p2p run it.
package main

import (
	"bytes"
	"fmt"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/internal/scenario"
	"github.com/gompi/gompi/mpi"
)

// scenarios are the scenarios by the name the tests pass, grouped by the
// file that holds them.
var scenarios = map[string]func(mpi.Comm) error{
	// matching.go
	"order":     order,
	"anysource": anySource,
	"probe":     probe,
	"freedrecv": freedRecv,
	// cancel.go
	"cancel": cancel,
	// completion.go
	"ssend":    ssend,
	"eager":    eager,
	"complete": complete,
	// errors.go
	"errors":   badArgs,
	"truncate": truncate,
	// failures.go
	"crash":   crash,
	"hang":    hang,
	"fatal":   fatal,
	"abort":   abort,
	"killmid": killMid,
	// payloads.go
	"sizes": sizes,
	"big":   big,
	"huge":  huge,
	"self":  self,
	"gc":    gcDuringTransfers,
	// traffic.go
	"random":   random,
	"pairs":    pairs,
	"bidir":    bidir,
	"window":   window,
	"stress":   stress,
	"pingpong": pingpong,
	// doze.go
	"doze": doze,
}

func main() { scenario.Main("p2pcheck", scenarios) }

// pattern fills a message deterministically from its id, so the receiver
// can check it without being sent the expected bytes.
func pattern(buf []byte, id uint64) { fillPattern(buf, seed(id)) }

// seed is the generator's state before message id's first byte.
func seed(id uint64) uint64 { return id*0x9E3779B97F4A7C15 + 1 }

// fillPattern fills buf from the generator's state x and returns the
// state after it, so that a message can be made or checked in parts.
func fillPattern(buf []byte, x uint64) uint64 {
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
	return x
}

// checkPattern checks buf against pattern's bytes for id, 64 KiB at a
// time: a message of hundreds of MiB needs no second buffer as large.
func checkPattern(buf []byte, id uint64) error {
	var want [64 << 10]byte
	x := seed(id)
	for off := 0; off < len(buf); off += len(want) {
		part := buf[off:min(off+len(want), len(buf))]
		x = fillPattern(want[:len(part)], x)
		if bytes.Equal(part, want[:len(part)]) {
			continue
		}
		for i := range part {
			if part[i] != want[i] {
				return fmt.Errorf("message %d: byte %d of %d is %#x, want %#x", id, off+i, len(buf), part[i], want[i])
			}
		}
	}
	return nil
}
