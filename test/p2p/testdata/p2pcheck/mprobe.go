package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gompi/gompi/mpi"
)

func init() {
	scenarios["mprobe"] = mprobe
	scenarios["mproberace"] = mprobeRace
}

// mprobeSizes are mprobe's message sizes unless the command line gives
// some: eager on every transport, past sm's eager limit (single copy),
// past tcp's (rendezvous) and several MiB (tcp's fragments).
var mprobeSizes = []int{0, 1, 100, 40000, 200000, 5 << 20}

// mprobe: every other rank sends rank 0 two rounds of one message of each
// size, tagged with its round and index; rank 0 takes them with AnySource
// and AnyTag, allocates each buffer from the probe's count, and receives
// them by Mprobe and Mrecv, and by Improbe and Imrecv, in turn. The checks
// of MessageNoProc and of the errors follow.
func mprobe(w mpi.Comm) error {
	sizes := mprobeSizes
	if len(os.Args) > 2 {
		sizes = nil
		for _, a := range os.Args[2:] {
			n, err := strconv.Atoi(a)
			if err != nil || n < 0 {
				return fmt.Errorf("size %q: want a non-negative integer", a)
			}
			sizes = append(sizes, n)
		}
	}
	if err := mprobeNoProc(w); err != nil {
		return err
	}
	tags := 2 * len(sizes)
	id := func(sender, tag int) uint64 { return uint64(sender*10000 + tag) }
	if w.Rank() != 0 {
		for tag := range tags {
			buf := make([]byte, sizes[tag%len(sizes)])
			pattern(buf, id(w.Rank(), tag))
			if err := mpi.Send(buf, 0, tag, w); err != nil {
				return fmt.Errorf("send of %d bytes: %w", len(buf), err)
			}
		}
		return nil
	}
	if m, _, found, err := mpi.Improbe(mpi.AnySource, tags, w); found || err != nil || m != mpi.MessageNull {
		return fmt.Errorf("Improbe of a tag nobody sends: found %v, %v", found, err)
	}
	for i := range (w.Size() - 1) * tags {
		polling := i%2 == 1
		msg, pst, err := mprobeOne(w, polling)
		if err != nil {
			return err
		}
		if pst.Count != mpi.Undefined || pst.Tag < 0 || pst.Tag >= tags || mpi.GetCount[byte](pst) != sizes[pst.Tag%len(sizes)] {
			return fmt.Errorf("probe status %+v: want count Undefined, a tag below %d and the length of that tag's message", pst, tags)
		}
		buf := make([]byte, mpi.GetCount[byte](pst))
		var st mpi.Status
		if !polling {
			st, err = mpi.Mrecv(buf, &msg)
		} else {
			var r mpi.Request
			if r, err = mpi.Imrecv(buf, &msg); err == nil {
				st, err = r.Wait()
			}
		}
		if err != nil {
			return fmt.Errorf("matched receive of the message from %d tag %d: %w", pst.Source, pst.Tag, err)
		}
		if msg != mpi.MessageNull {
			return fmt.Errorf("the message is not MessageNull after its receive")
		}
		if st.Source != pst.Source || st.Tag != pst.Tag || st.Count != len(buf) {
			return fmt.Errorf("received %+v of the message probed as %+v", st, pst)
		}
		if err := checkPattern(buf, id(pst.Source, pst.Tag)); err != nil {
			return fmt.Errorf("message from %d tag %d: %w", pst.Source, pst.Tag, err)
		}
	}
	return mprobeErrors(w)
}

// mprobeOne takes one message by Mprobe, or by Improbe until one is there.
func mprobeOne(w mpi.Comm, polling bool) (mpi.Message, mpi.Status, error) {
	if !polling {
		return mpi.Mprobe(mpi.AnySource, mpi.AnyTag, w)
	}
	for {
		m, st, found, err := mpi.Improbe(mpi.AnySource, mpi.AnyTag, w)
		if found || err != nil {
			if found && m == mpi.MessageNull {
				err = errors.New("Improbe found a message but returned MessageNull")
			}
			return m, st, err
		}
	}
}

// mprobeNoProc: a matched probe of ProcNull finds MessageNoProc, whose
// receive gives ProcNull's status at once.
func mprobeNoProc(w mpi.Comm) error {
	m, st, err := mpi.Mprobe(mpi.ProcNull, 3, w)
	if err != nil || m != mpi.MessageNoProc || st.Source != mpi.ProcNull {
		return fmt.Errorf("Mprobe of ProcNull: %+v, %v", st, err)
	}
	buf := []byte{9}
	if st, err := mpi.Mrecv(buf, &m); err != nil || st.Source != mpi.ProcNull || st.Tag != mpi.AnyTag || st.Count != 0 || buf[0] != 9 || m != mpi.MessageNull {
		return fmt.Errorf("Mrecv of MessageNoProc: %+v, %v", st, err)
	}
	m, _, found, err := mpi.Improbe(mpi.ProcNull, mpi.AnyTag, w)
	if !found || err != nil || m != mpi.MessageNoProc {
		return fmt.Errorf("Improbe of ProcNull: found %v, %v", found, err)
	}
	r, err := mpi.Imrecv(buf, &m)
	if err != nil {
		return fmt.Errorf("Imrecv of MessageNoProc: %w", err)
	}
	if st, err := r.Wait(); err != nil || st.Source != mpi.ProcNull || m != mpi.MessageNull {
		return fmt.Errorf("Imrecv of MessageNoProc: %+v, %v", st, err)
	}
	return nil
}

// mprobeErrors: a receive of MessageNull, or of a message received
// already, fails with ErrRequest, and one through a nil pointer with
// ErrArg; a short buffer truncates. Rank 0 sends itself the messages.
func mprobeErrors(w mpi.Comm) error {
	type check struct {
		what  string
		err   error
		class error
		text  string
	}
	null := mpi.MessageNull
	_, mrecvNull := mpi.Mrecv(make([]byte, 1), &null)
	_, imrecvNull := mpi.Imrecv(make([]byte, 1), &null)
	_, mrecvNil := mpi.Mrecv(make([]byte, 1), nil)
	checks := []check{
		{"Mrecv of MessageNull", mrecvNull, mpi.ErrRequest, "MessageNull"},
		{"Imrecv of MessageNull", imrecvNull, mpi.ErrRequest, "MessageNull"},
		{"Mrecv through nil", mrecvNil, mpi.ErrArg, "nil"},
	}
	for _, n := range []int{8, 1 << 20} {
		r, err := mpi.Isend(make([]byte, n), 0, 77, w)
		if err != nil {
			return err
		}
		m, _, err := mpi.Mprobe(0, 77, w)
		if err != nil {
			return err
		}
		again := m // a copy of the handle: the message it names is received once
		_, short := mpi.Mrecv(make([]byte, n/2), &m)
		if m != mpi.MessageNull {
			return fmt.Errorf("the message is not MessageNull after a truncated Mrecv")
		}
		_, second := mpi.Mrecv(make([]byte, n), &again)
		_, secondI := mpi.Imrecv(make([]byte, n), &again)
		checks = append(checks,
			check{fmt.Sprintf("Mrecv of %d bytes into %d", n, n/2), short, mpi.ErrTruncate, "truncated"},
			check{"a second Mrecv", second, mpi.ErrRequest, "received already"},
			check{"Imrecv after Mrecv", secondI, mpi.ErrRequest, "received already"})
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.class) || !strings.Contains(fmt.Sprint(c.err), c.text) {
			return fmt.Errorf("%s: %v, want %v saying %q", c.what, c.err, c.class, c.text)
		}
	}
	return nil
}

// raceMessages is how many messages each sender sends in mproberace.
const raceMessages = 400

// raceSizes mixes eager messages with ones past sm's and tcp's eager limits.
var raceSizes = []int{8, 100, 5000, 40000, 150000}

const raceStop = 1 << 20 // a tag past every sequence number

// mprobeRace: every other rank sends rank 1 raceMessages messages, each
// carrying its sender and sequence number (its tag). Two goroutines of
// rank 1 take them with AnySource and AnyTag, one by Mprobe then Mrecv,
// the other by Recv. Every message must be received exactly once, by
// one of them, and every Mrecv must get the message its Mprobe
// described. Which goroutine gets which is not checked: no outcome of
// the race is wrong.
func mprobeRace(w mpi.Comm) error {
	if w.Rank() != 1 {
		for seq := range raceMessages {
			msg := make([]byte, raceSizes[seq%len(raceSizes)])
			binary.LittleEndian.PutUint32(msg, uint32(w.Rank()))
			binary.LittleEndian.PutUint32(msg[4:], uint32(seq))
			if err := mpi.Send(msg, 1, seq, w); err != nil {
				return err
			}
		}
		return nil
	}
	total := (w.Size() - 1) * raceMessages
	var (
		mu    sync.Mutex
		got   = map[[2]int]int{}
		taken int
	)
	allIn := make(chan struct{})
	take := func(st mpi.Status, buf []byte) error {
		if len(buf) < 8 {
			return fmt.Errorf("a message of %d bytes from %d tag %d", len(buf), st.Source, st.Tag)
		}
		from, seq := int(binary.LittleEndian.Uint32(buf)), int(binary.LittleEndian.Uint32(buf[4:]))
		if from != st.Source || seq != st.Tag || len(buf) != raceSizes[seq%len(raceSizes)] {
			return fmt.Errorf("message %d of rank %d, %d bytes, came as tag %d from %d", seq, from, len(buf), st.Tag, st.Source)
		}
		mu.Lock()
		defer mu.Unlock()
		got[[2]int{from, seq}]++
		if taken++; taken == total {
			close(allIn)
		}
		return nil
	}
	ended := make(chan error, 2)
	go func() { // Mprobe, then Mrecv of what it took
		for {
			m, pst, err := mpi.Mprobe(mpi.AnySource, mpi.AnyTag, w)
			if err != nil {
				ended <- err
				return
			}
			buf := make([]byte, mpi.GetCount[byte](pst))
			st, err := mpi.Mrecv(buf, &m)
			if err != nil {
				ended <- err
				return
			}
			if st.Source != pst.Source || st.Tag != pst.Tag || st.Count != len(buf) {
				ended <- fmt.Errorf("Mprobe described %d bytes from %d tag %d, Mrecv received %d bytes from %d tag %d",
					len(buf), pst.Source, pst.Tag, st.Count, st.Source, st.Tag)
				return
			}
			if st.Tag == raceStop {
				ended <- nil
				return
			}
			if err := take(st, buf); err != nil {
				ended <- err
				return
			}
		}
	}()
	go func() { // Recv
		buf := make([]byte, raceSizes[len(raceSizes)-1])
		for {
			st, err := mpi.Recv(buf, mpi.AnySource, mpi.AnyTag, w)
			if err != nil {
				ended <- err
				return
			}
			if st.Tag == raceStop {
				ended <- nil
				return
			}
			if err := take(st, buf[:st.Count]); err != nil {
				ended <- err
				return
			}
		}
	}()
	// Once everything is in, a stop to itself ends one goroutine, then
	// another the other; a goroutine that failed ends early.
	select {
	case <-allIn:
	case err := <-ended:
		return fmt.Errorf("a receiving goroutine ended before all %d messages were in: %v", total, err)
	}
	for range 2 {
		if err := mpi.Send([]byte{}, 1, raceStop, w); err != nil {
			return err
		}
		if err := <-ended; err != nil {
			return err
		}
	}
	for k, n := range got {
		if n != 1 {
			return fmt.Errorf("message %d of rank %d received %d times", k[1], k[0], n)
		}
	}
	if len(got) != total {
		return fmt.Errorf("%d distinct messages of %d", len(got), total)
	}
	return nil
}
