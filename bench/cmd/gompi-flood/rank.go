package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

// rank runs one rank of the job to flood.
func rank(args []string) error {
	fs := flag.NewFlagSet("rank", flag.ContinueOnError)
	goFile := fs.String("go", "", "rank 0 sends to rank 1 once this file exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *goFile == "" {
		return errors.New("rank: -go is required")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	if world.Size() != 2 {
		return fmt.Errorf("rank: run 2 ranks, not %d", world.Size())
	}
	buf := []int64{0}
	switch world.Rank() {
	case 0:
		for {
			if _, err := os.Stat(*goFile); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		start := time.Now()
		buf[0] = 42
		if err := mpi.Send(buf, 1, 0, world); err != nil {
			return fmt.Errorf("rank 0: send under the flood: %w", err)
		}
		fmt.Printf("rank 0: sent to rank 1 in %v\n", time.Since(start).Round(time.Millisecond))
	case 1:
		fmt.Printf("rank 1: pid %d\n", os.Getpid())
		if _, err := mpi.Recv(buf, 0, 0, world); err != nil {
			return fmt.Errorf("rank 1: recv under the flood: %w", err)
		}
		fmt.Printf("rank 1: received %d\n", buf[0])
	}
	return mpi.Finalize()
}
