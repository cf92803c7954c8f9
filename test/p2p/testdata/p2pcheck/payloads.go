package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/mpi"
	"golang.org/x/sys/unix"
)

// sizes: rank 0 sends one message of each size named on the command line
// (after the scenario) to rank 1, blocking and non-blocking, and rank 1
// checks every byte and the count: sizes on each protocol boundary.
func sizes(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	var list []int
	for _, a := range os.Args[2:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return fmt.Errorf("size %q: want a non-negative integer", a)
		}
		list = append(list, n)
	}
	if len(list) == 0 {
		return fmt.Errorf("no sizes given")
	}
	for i, n := range list {
		id := uint64(i + 1)
		if w.Rank() == 0 {
			buf := make([]byte, n)
			pattern(buf, id)
			if err := mpi.Send(buf, 1, i, w); err != nil {
				return fmt.Errorf("send of %d bytes: %w", n, err)
			}
			pattern(buf, id+1000)
			r, err := mpi.Isend(buf, 1, i, w)
			if err == nil {
				_, err = r.Wait()
			}
			if err != nil {
				return fmt.Errorf("isend of %d bytes: %w", n, err)
			}
			continue
		}
		for _, want := range []uint64{id, id + 1000} {
			buf := make([]byte, n+1) // one spare byte: the count must say n
			st, err := mpi.Recv(buf, 0, i, w)
			if err != nil {
				return fmt.Errorf("recv of %d bytes: %w", n, err)
			}
			if st.Count != n {
				return fmt.Errorf("recv of %d bytes: count %d", n, st.Count)
			}
			if err := checkPattern(buf[:n], want); err != nil {
				return fmt.Errorf("%d bytes: %w", n, err)
			}
			if buf[n] != 0 {
				return fmt.Errorf("%d bytes: the byte after the message was written", n)
			}
		}
	}
	return nil
}

// big: a 64 MiB message from rank 0 to rank 1, many times every limit
// where a transport changes how it moves data (fragments, pieces of
// shared copies, socket buffers).
func big(w mpi.Comm) error {
	const size = 64 << 20
	buf := make([]byte, size)
	switch w.Rank() {
	case 0:
		pattern(buf, 256)
		return mpi.Send(buf, 1, 0, w)
	case 1:
		st, err := mpi.Recv(buf, 0, 0, w)
		if err != nil || st.Count != size {
			return fmt.Errorf("recv: %v, count %d", err, st.Count)
		}
		return checkPattern(buf, 256)
	}
	return nil
}

// huge: a self-send of more than 2^31 elements.
func huge(w mpi.Comm) error {
	const n = 1<<31 + 3
	msg, err := hugeBuffer(n)
	if err != nil {
		return err
	}
	msg[0], msg[n-1] = 1, 2
	buf, err := hugeBuffer(n)
	if err != nil {
		return err
	}
	r, err := mpi.Irecv(buf, w.Rank(), 0, w)
	if err != nil {
		return err
	}
	if err := mpi.Send(msg, w.Rank(), 0, w); err != nil {
		return err
	}
	st, err := r.Wait()
	if err != nil || st.Count != n || buf[0] != 1 || buf[n-1] != 2 {
		return fmt.Errorf("status %+v err %v", st, err)
	}
	return nil
}

// hugeBuffer maps n bytes for huge's messages in 2 MiB pages where the
// kernel has them: faulting 2 GiB in 4 KiB pages was most of the
// program's 19 s alone, which took 7.4 s in 2 MiB pages.
func hugeBuffer(n int) ([]int8, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("map %d bytes: %w", n, err)
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // a hint: 4 KiB pages do too
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), n), nil
}

// self: every rank sends to itself, eager and rendezvous, on the world and
// self communicators, with the receive posted before and after.
func self(w mpi.Comm) error {
	for _, comm := range []mpi.Comm{w, mpi.CommSelf()} {
		me := comm.Rank()
		for i, size := range []int{0, 10, 4096, 1 << 20} {
			msg := make([]byte, size)
			pattern(msg, uint64(i))
			buf := make([]byte, size)
			r, err := mpi.Irecv(buf, me, i, comm)
			if err != nil {
				return err
			}
			if err := mpi.Send(msg, me, i, comm); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return fmt.Errorf("%v, posted first: %w", comm, err)
			}
			s, err := mpi.Isend(msg, me, i, comm)
			if err != nil {
				return err
			}
			clear(buf)
			if _, err := mpi.Recv(buf, me, i, comm); err != nil {
				return err
			}
			if _, err := s.Wait(); err != nil {
				return err
			}
			if err := checkPattern(buf, uint64(i)); err != nil {
				return fmt.Errorf("%v, sent first: %w", comm, err)
			}
		}
	}
	return nil
}

// gcDuringTransfers: rank 0 sends large messages from buffers it keeps no
// reference to, while a goroutine forces garbage collections, and rank 1
// receives them late: a buffer read straight from the sender's memory
// must still hold the message.
func gcDuringTransfers(w mpi.Comm) error {
	if w.Rank() > 1 {
		return nil
	}
	const n, size = 20, 1 << 20
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				_ = make([]byte, 4<<20) // garbage, so that freed memory would be reused
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	if w.Rank() == 0 {
		reqs := make([]mpi.Request, n)
		for i := range n {
			r, err := isendFresh(w, size, uint64(i))
			if err != nil {
				return err
			}
			reqs[i] = r
		}
		if err := mpi.Send([]byte{1}, 1, 99, w); err != nil { // the receiver starts now
			return err
		}
		return mpi.WaitAll(reqs...)
	}
	if _, err := mpi.Recv(make([]byte, 1), 0, 99, w); err != nil {
		return err
	}
	for i := range n {
		runtime.GC()
		buf := make([]byte, size)
		if _, err := mpi.Recv(buf, 0, i, w); err != nil {
			return err
		}
		if err := checkPattern(buf, uint64(i)); err != nil {
			return err
		}
	}
	return nil
}

// isendFresh sends a new buffer that only the request refers to.
func isendFresh(w mpi.Comm, size int, id uint64) (mpi.Request, error) {
	buf := make([]byte, size)
	pattern(buf, id)
	return mpi.Isend(buf, 1, int(id), w)
}
