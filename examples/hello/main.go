// Command hello is the smallest gompi program: every rank says who it is
// and which transport reaches each peer.
//
//	gompirun -np 4 bin/hello
package main

import (
	"fmt"
	"log"
	"os"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	host, _ := os.Hostname()
	fmt.Printf("hello from rank %d of %d on %s (transports: %s)\n", world.Rank(), world.Size(), host, pmpi.Transports())
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}
