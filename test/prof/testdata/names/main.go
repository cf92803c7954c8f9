// Command names prints, on rank 0, the names that Comm.Name gives the
// predefined communicators, the null one and derived ones, as tools and
// reports read them, one "what: name" a line.
package main

import (
	"fmt"
	"log"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	dup, err := world.Dup()
	if err != nil {
		log.Fatal(err)
	}
	split, err := dup.Split(0, world.Rank())
	if err != nil {
		log.Fatal(err)
	}
	var null mpi.Comm
	lines := [][2]string{
		{"world", world.Name()}, {"self", mpi.CommSelf().Name()}, {"null", null.Name()},
		{"null string", null.String()}, {"dup", dup.Name()}, {"split of dup", split.Name()},
	}
	if err := split.Free(); err != nil {
		log.Fatal(err)
	}
	lines = append(lines, [2]string{"freed", split.Name()})
	if world.Rank() == 0 {
		for _, l := range lines {
			fmt.Printf("%s: %s\n", l[0], l[1])
		}
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}
