// Command p2pcheck runs one point-to-point scenario on every rank of a
// gompirun job and prints "ok <scenario> rank <r>" when the rank's checks
// pass; a failed check prints FAIL and exits 1. The tests in test/p2p run it.
package main

import (
	"fmt"
	"hash/crc32"

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
func pattern(buf []byte, id uint64) {
	x := id*0x9E3779B97F4A7C15 + 1
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
}

func checkPattern(buf []byte, id uint64) error {
	want := make([]byte, len(buf))
	pattern(want, id)
	if crc32.ChecksumIEEE(buf) != crc32.ChecksumIEEE(want) {
		return fmt.Errorf("message %d: checksum mismatch over %d bytes", id, len(buf))
	}
	return nil
}
