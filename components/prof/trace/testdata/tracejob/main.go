// Command tracejob sends known traffic between 3 ranks for the trace
// component's tests: blocking sends to AnySource receives, an Isend with
// its Wait, Sendrecv rings (two of them from two goroutines at once),
// collectives (one with a user's operation that calls MPI), a split
// communicator, phases, a pause in recording, and a send to and a
// receive from ProcNull.
package main

import (
	"fmt"
	"os"
	"sync"

	_ "github.com/gompi/gompi/components/all"
	_ "github.com/gompi/gompi/components/prof/trace"
	"github.com/gompi/gompi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		fail("init", err)
	}
	world := mpi.CommWorld()
	if n := world.Size(); n != 3 {
		fail("size", fmt.Errorf("want 3 ranks, have %d", n))
	}
	rank := world.Rank()
	check("pcontrol 2", mpi.Pcontrol(2))

	// Three messages to rank 1, received from AnySource.
	switch rank {
	case 0:
		check("send 0->1", mpi.Send([]int32{1, 2}, 1, 1, world))
		check("send 0->1", mpi.Send([]int32{3, 4}, 1, 1, world))
	case 2:
		check("send 2->1", mpi.Send([]int32{5, 6}, 1, 1, world))
	case 1:
		for range 3 {
			buf := make([]int32, 2)
			_, err := mpi.Recv(buf, mpi.AnySource, 1, world)
			check("recv any", err)
		}
	}

	// An Isend and its Wait, to an AnySource Irecv.
	switch rank {
	case 1:
		r, err := mpi.Isend([]float64{1.5}, 0, 2, world)
		check("isend", err)
		_, err = r.Wait()
		check("wait isend", err)
	case 0:
		buf := make([]float64, 1)
		r, err := mpi.Irecv(buf, mpi.AnySource, 2, world)
		check("irecv", err)
		st, err := r.Wait()
		check("wait irecv", err)
		if st.Source != 1 || buf[0] != 1.5 {
			fail("irecv", fmt.Errorf("got %v from %d", buf[0], st.Source))
		}
	}

	ring(world, 3)
	// Neither goroutine ends before both have rung: one that started after
	// the other ended could reuse its descriptor, and so its track.
	var rung, ended sync.WaitGroup
	release := make(chan struct{})
	for g := range 2 {
		rung.Add(1)
		ended.Add(1)
		go func() {
			defer ended.Done()
			ring(world, 10+g)
			rung.Done()
			<-release
		}()
	}
	rung.Wait()
	close(release)
	ended.Wait()

	sum := make([]int64, 1)
	check("allreduce", mpi.Allreduce([]int64{int64(rank)}, sum, mpi.Sum, world))
	if sum[0] != 3 {
		fail("allreduce", fmt.Errorf("sum %d, want 3", sum[0]))
	}
	// A user's operation that calls MPI: its Iprobe nests inside the
	// Allreduce on whichever ranks apply the operation (at least one).
	sumProbing, err := mpi.NewOp(func(in, inout []int64) {
		_, _, err := mpi.Iprobe(mpi.AnySource, 99, world)
		check("iprobe in an operation", err)
		for i := range in {
			inout[i] += in[i]
		}
	}, true)
	check("new op", err)
	check("allreduce with a user op", mpi.Allreduce([]int64{int64(rank)}, sum, sumProbing, world))
	if sum[0] != 3 {
		fail("allreduce with a user op", fmt.Errorf("sum %d, want 3", sum[0]))
	}
	check("pcontrol 2", mpi.Pcontrol(2))

	// Rank 0 pauses recording for one message: the next one's arrow must
	// still join the right calls.
	switch rank {
	case 0:
		check("pcontrol 0", mpi.Pcontrol(0))
		check("send unrecorded", mpi.Send([]byte{1}, 2, 4, world))
		check("pcontrol 1", mpi.Pcontrol(1))
		check("send recorded", mpi.Send([]byte{2}, 2, 4, world))
	case 2:
		for want := byte(1); want <= 2; want++ {
			buf := make([]byte, 1)
			_, err := mpi.Recv(buf, 0, 4, world)
			check("recv after pause", err)
			if buf[0] != want {
				fail("recv after pause", fmt.Errorf("got %d, want %d", buf[0], want))
			}
		}
	}

	// Ranks 0 and 2 in a communicator of their own.
	sub, err := world.Split(rank%2, rank)
	check("split", err)
	switch rank {
	case 0:
		check("send on split", mpi.Send([]int16{7}, 1, 1, sub))
	case 2:
		_, err := mpi.Recv(make([]int16, 1), 0, 1, sub)
		check("recv on split", err)
	}

	// 8 bytes to and from ProcNull, which move nothing.
	check("send to ProcNull", mpi.Send([]int32{8, 9}, mpi.ProcNull, 6, world))
	_, err = mpi.Recv(make([]int32, 2), mpi.ProcNull, 6, world)
	check("recv from ProcNull", err)
	check("barrier", mpi.Barrier(world))
	check("finalize", mpi.Finalize())
	fmt.Printf("ok rank %d\n", rank)
}

// ring sends to the next rank and receives from the previous one.
func ring(world mpi.Comm, tag int) {
	rank, size := world.Rank(), world.Size()
	in := make([]int32, 1)
	_, err := mpi.Sendrecv([]int32{int32(rank)}, (rank+1)%size, tag, in, (rank+size-1)%size, tag, world)
	check("sendrecv", err)
	if in[0] != int32((rank+size-1)%size) {
		fail("sendrecv", fmt.Errorf("got %d", in[0]))
	}
}

func check(what string, err error) {
	if err != nil {
		fail(what, err)
	}
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "FAIL %s: %v\n", what, err)
	os.Exit(1)
}
