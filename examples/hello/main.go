// Command hello is the smallest gompi program: every rank says who it is
// and which transport reaches each peer.
//
//	gompirun -np 4 bin/hello
package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	host, _ := os.Hostname()
	var via []string // "rank:transport" per peer
	for r := range world.Size() {
		t, err := world.Transport(r)
		if err != nil {
			log.Fatal(err)
		}
		via = append(via, fmt.Sprintf("%d:%s", r, t))
	}
	fmt.Printf("hello from rank %d of %d on %s (transports: %s)\n", world.Rank(), world.Size(), host, strings.Join(via, " "))
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}
