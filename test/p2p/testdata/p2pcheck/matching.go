package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// order: every other rank sends 300 messages of mixed eager and rendezvous
// sizes with one tag to rank 0, which must see each sender's in order.
func order(w mpi.Comm) error {
	const n = 300
	sizes := []int{8, 200_000, 0, 70_000, 1024}
	if w.Rank() != 0 {
		var reqs []mpi.Request
		for i := range n {
			buf := make([]int64, sizes[i%len(sizes)]/8+1)
			buf[0] = int64(i)
			r, err := mpi.Isend(buf, 0, 5, w)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		return mpi.WaitAll(reqs...)
	}
	buf := make([]int64, 200_000/8+1)
	for src := 1; src < w.Size(); src++ {
		for i := range n {
			if _, err := mpi.Recv(buf, src, 5, w); err != nil {
				return err
			}
			if buf[0] != int64(i) {
				return fmt.Errorf("from rank %d: message %d arrived as number %d", src, buf[0], i)
			}
		}
	}
	return nil
}

// anySource: every other rank sends 100 numbered messages; rank 0 takes
// them with AnySource and AnyTag and checks per-sender order and counts.
func anySource(w mpi.Comm) error {
	const n = 100
	if w.Rank() != 0 {
		for i := range n {
			if err := mpi.Send([]int32{int32(w.Rank()), int32(i)}, 0, w.Rank(), w); err != nil {
				return err
			}
		}
		return nil
	}
	next := make([]int32, w.Size())
	buf := make([]int32, 2)
	for range n * (w.Size() - 1) {
		st, err := mpi.Recv(buf, mpi.AnySource, mpi.AnyTag, w)
		if err != nil {
			return err
		}
		if int(buf[0]) != st.Source || st.Tag != st.Source || st.Count != 2 {
			return fmt.Errorf("status %+v for a message from rank %d", st, buf[0])
		}
		if buf[1] != next[st.Source] {
			return fmt.Errorf("from rank %d: message %d arrived when %d was due", st.Source, buf[1], next[st.Source])
		}
		next[st.Source]++
	}
	return nil
}

// probe: rank 0 sends messages of sizes rank 1 does not know; rank 1
// probes (Probe and Iprobe in turn), sizes its buffer with GetCount and
// receives.
func probe(w mpi.Comm) error {
	sizes := []int{0, 3, 5000, 300_000}
	for i, size := range sizes {
		switch w.Rank() {
		case 0:
			msg := make([]float64, size)
			for j := range msg {
				msg[j] = float64(i*j) + 0.5
			}
			if err := mpi.Send(msg, 1, 100+i, w); err != nil {
				return err
			}
		case 1:
			st, err := probeOrIprobe(w, i%2 == 1)
			if err != nil {
				return err
			}
			if st.Tag != 100+i || mpi.GetCount[float64](st) != size {
				return fmt.Errorf("probe: tag %d count %d, want tag %d count %d", st.Tag, mpi.GetCount[float64](st), 100+i, size)
			}
			// Count is what a call received, in its datatype: a probe, which
			// receives nothing and has no datatype, has none.
			if st.Count != mpi.Undefined {
				return fmt.Errorf("probe of %d float64s: Count %d, want Undefined", size, st.Count)
			}
			buf := make([]float64, mpi.GetCount[float64](st))
			st, err = mpi.Recv(buf, st.Source, st.Tag, w)
			if err != nil || st.Count != size || mpi.GetCount[float64](st) != size {
				return fmt.Errorf("recv after probe: %v, Count %d, GetCount %d, want %d", err, st.Count, mpi.GetCount[float64](st), size)
			}
			for j := range buf {
				if buf[j] != float64(i*j)+0.5 {
					return fmt.Errorf("element %d is %v", j, buf[j])
				}
			}
		}
	}
	if w.Rank() == 1 {
		if _, found, err := mpi.Iprobe(0, mpi.AnyTag, w); err != nil || found {
			return fmt.Errorf("iprobe found a message that was never sent (%v)", err)
		}
	}
	return nil
}

// probeOrIprobe waits for a message from rank 0 with any tag, with Probe
// or by calling Iprobe until it finds one.
func probeOrIprobe(w mpi.Comm, iprobe bool) (mpi.Status, error) {
	if !iprobe {
		return mpi.Probe(0, mpi.AnyTag, w)
	}
	for {
		st, found, err := mpi.Iprobe(0, mpi.AnyTag, w)
		if err != nil || found {
			return st, err
		}
	}
}

// freedRecv: rank 1 posts a receive of any source and tag on a
// communicator and frees it, as MPI allows; the next communicator must
// not be reached by that receive, though it is made right after. Rank 0
// sends on the new one synchronously, so that the message has matched a
// receive, the old or the new one, before rank 1 looks.
func freedRecv(w mpi.Comm) error {
	d, err := w.Dup()
	if err != nil {
		return err
	}
	var old mpi.Request
	if w.Rank() == 1 {
		if old, err = mpi.Irecv(make([]int, 1), mpi.AnySource, mpi.AnyTag, d); err != nil {
			return err
		}
	}
	if err := d.Free(); err != nil {
		return err
	}
	d2, err := w.Dup()
	if err != nil {
		return err
	}
	defer d2.Free()
	switch w.Rank() {
	case 0:
		if err := mpi.Ssend([]int{222}, 1, 5, d2); err != nil {
			return err
		}
		return mpi.Send([]int{}, 1, 99, w)
	case 1:
		got := make([]int, 1)
		r, err := mpi.Irecv(got, 0, 5, d2)
		if err != nil {
			return err
		}
		if _, err := mpi.Recv([]int{}, 0, 99, w); err != nil {
			return err
		}
		reqs := []mpi.Request{old, r}
		i, _, err := mpi.WaitAny(reqs)
		if err != nil {
			return err
		}
		if i == 0 {
			return fmt.Errorf("a receive posted on a freed communicator took the message sent on the next one")
		}
		if got[0] != 222 {
			return fmt.Errorf("received %d on the new communicator, want 222", got[0])
		}
		// The old receive never matches; cancelled, it gives its id back.
		if err := old.Cancel(); err != nil {
			return err
		}
		st, err := old.Wait()
		if err != nil {
			return err
		}
		if !st.Cancelled {
			return fmt.Errorf("the old receive was not cancelled: %+v", st)
		}
	}
	return nil
}
