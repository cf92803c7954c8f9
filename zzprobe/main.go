package main

import (
	"fmt"
	"os"
	"strconv"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	w := mpi.CommWorld()
	size, _ := strconv.Atoi(os.Args[1])
	s, r := make([]byte, 1<<20), make([]byte, 1<<20)
	peer := 1 - w.Rank()
	rt := func(n int) float64 {
		t := mpi.Wtime()
		if w.Rank() == 0 {
			mpi.Send(s[:n], peer, 1, w)
			mpi.Recv(r[:n], peer, 1, w)
		} else {
			mpi.Recv(r[:n], peer, 1, w)
			mpi.Send(s[:n], peer, 1, w)
		}
		return (mpi.Wtime() - t) * 1e6
	}
	for i := 0; i < 50; i++ {
		rt(32768)
	}
	var out []string
	for i := 0; i < 40; i++ {
		out = append(out, fmt.Sprintf("%.1f", rt(size)))
	}
	if w.Rank() == 0 {
		fmt.Println(size, out)
	}
	mpi.Finalize()
}
