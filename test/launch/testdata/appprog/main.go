// Command appprog is the MPI program of the MPMD tests: every rank prints
// its world rank and size, its app context (MPI_APPNUM), its arguments and
// $COLOR, and rank 0 prints every rank's app context, gathered over the
// world, which shows that the contexts' ranks form one job.
//
// With $APPPROG_HOLD set to a path, it writes its pid there and waits
// before Init until it is killed: a program gompirun cannot finish asking
// which components it links.
package main

import (
	"fmt"
	"log"
	"os"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if hold := os.Getenv("APPPROG_HOLD"); hold != "" {
		if err := os.WriteFile(hold, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			log.Fatal(err)
		}
		select {}
	}
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
