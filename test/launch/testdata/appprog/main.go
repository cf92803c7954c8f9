// Command appprog is the MPI program of the MPMD tests: every rank prints
// its world rank and size, its app context (MPI_APPNUM), its arguments and
// $COLOR, and rank 0 prints every rank's app context, gathered over the
// world, which shows that the contexts' ranks form one job.
package main

import (
	"fmt"
	"log"
	"os"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	app := mpi.AppNum()
	fmt.Printf("rank %d of %d app %d args %q COLOR=%s\n", world.Rank(), world.Size(), app, os.Args[1:], os.Getenv("COLOR"))
	apps := make([]int32, world.Size())
	if err := mpi.Allgather([]int32{int32(app)}, apps, world); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Printf("apps %v\n", apps)
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}
