// Command pmiprog exercises package pmi under a real launcher: each rank
// puts a binary value, fences, reads every rank's value back and checks
// it, then prints its identity and node layout.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/gompi/gompi/internal/pmi"
)

func main() {
	version := flag.Int("pmi", 0, "protocol: 0 auto, 1 PMI-1, 2 PMI-2")
	size := flag.Int("value-size", 64, "bytes in each rank's value")
	abortRank := flag.Int("abort", -1, "this rank aborts the job with exit code 7 after the fence")
	flag.Parse()
	if err := run(pmi.Version(*version), *size, *abortRank); err != nil {
		fmt.Fprintln(os.Stderr, "pmiprog:", err)
		os.Exit(1)
	}
}

// value is rank r's payload: every byte value, separators included.
func value(r, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + r)
	}
	return b
}

func run(v pmi.Version, n, abortRank int) error {
	c, err := pmi.Open(os.Getenv, v)
	if err != nil {
		return err
	}
	if err := c.Put("rank-"+strconv.Itoa(c.Rank()), value(c.Rank(), n)); err != nil {
		return err
	}
	if err := c.Fence(); err != nil {
		return err
	}
	if c.Rank() == abortRank {
		fmt.Fprintf(os.Stderr, "rank %d aborting the job\n", c.Rank())
		if err := c.Abort(7, "pmiprog: rank "+strconv.Itoa(c.Rank())+" aborts as asked"); err != nil {
			return err
		}
		os.Exit(7)
	}
	for r := 0; r < c.Size(); r++ {
		got, err := c.Get("rank-" + strconv.Itoa(r))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, value(r, n)) {
			return fmt.Errorf("rank %d's value came back as %d bytes %x...", r, len(got), got[:min(len(got), 16)])
		}
	}
	node, err := c.Node()
	if err != nil {
		return err
	}
	// Every rank passes the second fence only when all have read.
	if err := c.Fence(); err != nil {
		return err
	}
	fmt.Printf("rank %d size %d local %d/%d node %d appnum %d %v job %s ok\n",
		c.Rank(), c.Size(), node.LocalRank, len(node.Ranks), node.ID, c.AppNum(), c.Version(), c.JobID())
	return c.Finalize()
}
