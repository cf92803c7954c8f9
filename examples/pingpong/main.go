// Command pingpong measures one-way latency and bandwidth between ranks 0
// and 1, in the layout of the OSU micro-benchmarks: for each size, the
// one-way time (half the round trip) in microseconds and the bandwidth in
// MB/s.
//
//	gompirun -np 2 bin/pingpong -m 0:4194304 -i 1000 -x 100
package main

import (
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

func main() {
	sizes := flag.String("m", "0:4194304", "message sizes min:max in bytes, by powers of two")
	iters := flag.Int("i", 1000, "iterations per size (fewer above 64 KiB)")
	warm := flag.Int("x", 100, "warm-up iterations per size")
	flag.Parse()
	lo, hi, err := parseRange(*sizes)
	if err != nil {
		log.Fatal(err)
	}
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.CommWorld()
	if world.Size() < 2 {
		log.Fatal("pingpong needs at least 2 ranks")
	}
	if world.Rank() == 0 {
		fmt.Printf("# gompi pingpong: ranks 0 and 1, transports %s\n", pmpi.Transports())
		fmt.Printf("# %-10s %14s %14s\n", "Size", "Latency (us)", "MB/s")
	}
	buf := make([]byte, max(hi, 1))
	for size := lo; size <= hi; size = next(size) {
		n := *iters
		if size > 65536 {
			n = max(n/10, 10)
		}
		t, err := pingpong(world, buf[:size], n, *warm)
		if err != nil {
			log.Fatalf("rank %d: size %d: %v", world.Rank(), size, err)
		}
		if world.Rank() == 0 {
			oneWay := t / float64(n) / 2
			fmt.Printf("%-12d %14.2f %14.2f\n", size, oneWay*1e6, float64(size)/oneWay/1e6)
		}
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

// pingpong returns the seconds n round trips of buf take between ranks 0 and 1.
func pingpong(world mpi.Comm, buf []byte, n, warm int) (float64, error) {
	rank := world.Rank()
	var start float64
	for i := range n + warm {
		if i == warm {
			start = mpi.Wtime()
		}
		switch rank {
		case 0:
			if err := mpi.Send(buf, 1, 1, world); err != nil {
				return 0, err
			}
			if _, err := mpi.Recv(buf, 1, 1, world); err != nil {
				return 0, err
			}
		case 1:
			if _, err := mpi.Recv(buf, 0, 1, world); err != nil {
				return 0, err
			}
			if err := mpi.Send(buf, 0, 1, world); err != nil {
				return 0, err
			}
		}
	}
	return mpi.Wtime() - start, nil
}

func next(size int) int {
	if size == 0 {
		return 1
	}
	return size * 2
}

func parseRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("-m %q: want min:max in bytes with 0 <= min <= max", s)
	}
	return lo, hi, nil
}
