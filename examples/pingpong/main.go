// Command pingpong measures one-way latency and bandwidth between ranks 0
// and 1, in the layout of the OSU micro-benchmarks: for each size, the
// one-way time (half the round trip) in microseconds and the bandwidth in
// MB/s. With -nonblocking each message goes by Isend or Irecv and its
// Wait, as codes that overlap communication write it.
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
)

func main() {
	sizes := flag.String("m", "0:4194304", "message sizes min:max in bytes, by powers of two")
	iters := flag.Int("i", 1000, "iterations per size (fewer above 64 KiB)")
	warm := flag.Int("x", 100, "warm-up iterations per size")
	nonblocking := flag.Bool("nonblocking", false, "send and receive with Isend and Irecv, each followed by its Wait")
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
		via, err := world.Transport(1)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("# gompi pingpong: ranks 0 and 1, transport %s\n", via)
		fmt.Printf("# %-10s %14s %14s\n", "Size", "Latency (us)", "MB/s")
	}
	buf := make([]byte, max(hi, 1))
	for size := lo; size <= hi; size = next(size) {
		n := *iters
		if size > 65536 {
			n = max(n/10, 10)
		}
		t, err := pingpong(world, buf[:size], n, *warm, *nonblocking)
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
func pingpong(world mpi.Comm, buf []byte, n, warm int, nonblocking bool) (float64, error) {
	rank := world.Rank()
	if rank > 1 {
		return 0, nil
	}
	peer := 1 - rank
	first, second := blocking(world, buf, peer) // rank 0 sends first
	if nonblocking {
		first, second = waited(world, buf, peer)
	}
	if rank == 1 {
		first, second = second, first
	}
	var start float64
	for i := range n + warm {
		if i == warm {
			start = mpi.Wtime()
		}
		if err := first(); err != nil {
			return 0, err
		}
		if err := second(); err != nil {
			return 0, err
		}
	}
	return mpi.Wtime() - start, nil
}

// blocking returns a Send and a Recv of buf with peer.
func blocking(world mpi.Comm, buf []byte, peer int) (send, recv func() error) {
	send = func() error { return mpi.Send(buf, peer, 1, world) }
	recv = func() error {
		_, err := mpi.Recv(buf, peer, 1, world)
		return err
	}
	return send, recv
}

// waited returns an Isend and an Irecv of buf with peer, each waited on.
func waited(world mpi.Comm, buf []byte, peer int) (send, recv func() error) {
	wait := func(r mpi.Request, err error) error {
		if err != nil {
			return err
		}
		_, err = r.Wait()
		return err
	}
	send = func() error { return wait(mpi.Isend(buf, peer, 1, world)) }
	recv = func() error { return wait(mpi.Irecv(buf, peer, 1, world)) }
	return send, recv
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
