package pmpi

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/gompi/gompi/frameworks/coll"
)

// The collectives check their arguments as far as one rank can see them,
// resolve MPI_IN_PLACE into buffers that do not overlap, turn counts into
// bytes, and call the function the communicator's coll table chose.

var inPlaceMark [1]byte

// InPlace, passed as a send buffer (or as the receive buffer of Scatter
// and Scatterv at the root), is MPI_IN_PLACE: the data is taken from, and
// left in, the other buffer.
var InPlace = inPlaceMark[:0:0]

// IsInPlace reports whether b is InPlace.
func IsInPlace(b []byte) bool {
	return cap(b) == 0 && unsafe.SliceData(b) == unsafe.SliceData(InPlace)
}

// collCall is one collective call's checked state.
type collCall struct {
	op   string // the collective as messages name it: "reduce scatter"
	comm *Comm
	t    *coll.Table
	// convs are the packed copies of non-contiguous buffers (data says
	// which), released by done, which unpacks those that receive.
	convs []*conversion
	// from is the buffer an in-place call copied its send data from,
	// which a persistent call copies again at each start.
	from []byte
	// copied holds that copy, from packPool: a blocking call that
	// succeeds gives it back.
	copied *[]byte
}

// startColl begins the collective name names on comm: blocking if s is
// nil, else non-blocking or persistent as s says, and named so in messages.
func startColl(s *collStart, name *collName, comm *Comm) (collCall, error) {
	op := s.callName(name)
	if _, err := collArgs(op, comm); err != nil {
		return collCall{}, err
	}
	if comm.inter != nil {
		return collCall{}, errInterColl(op, comm)
	}
	return collCall{op: op, comm: comm, t: comm.colls}, nil
}

// inPlace returns an in-place call's send data, and remembers buf for a
// persistent call's later starts: a pooled copy of buf, which the other
// ranks' data may overwrite before the algorithm has sent it; with one
// rank, where nothing comes in, buf itself.
func (k *collCall) inPlace(buf []byte) []byte {
	k.from = buf
	if k.comm.Size() == 1 {
		return buf
	}
	k.copied = getPacked(len(buf))
	copy(*k.copied, buf)
	return *k.copied
}

// collective is the call's name in coll.Collectives, which writes with
// underscores what messages write with spaces.
func (k *collCall) collective() string { return strings.ReplaceAll(k.op, " ", "_") }

func (k *collCall) fail(class ErrorClass, format string, args ...any) error {
	return k.comm.handle(errorf(class, nil, "%s on %v: %s", k.op, k.comm, fmt.Sprintf(format, args...)))
}

// done wraps what the component serving the call returned with the call,
// the communicator and the component: components leave all three out,
// since only the table knows which of them served the call.
func (k *collCall) done(err error) error {
	if k.convs != nil {
		k.unpackAll(err == nil)
	}
	if err == nil {
		return nil
	}
	return k.comm.handle(errorf(classOf(err), served(k.t, k.collective(), err), "%s on %v", k.op, k.comm))
}

// served names the component of t that serves collective ahead of err, a
// non-nil error it returned.
func served(t *coll.Table, collective string, err error) error {
	return fmt.Errorf("coll %s: %w", t.Provider(collective), err)
}

func (k *collCall) missing() error {
	return k.comm.handle(errorf(ClassIntern, coll.ErrNoProvider, "%s on %v (coll components: check the coll parameter)", k.op, k.comm))
}

func (k *collCall) root(root int) error {
	if root < 0 || root >= k.comm.Size() {
		switch root {
		case Root, ProcNull:
			return k.fail(ClassRoot, "root %s is for intercommunicators only: want a rank from 0 to %d", rootName(root), k.comm.Size()-1)
		}
		return k.fail(ClassRoot, "root %d is out of range (0 to %d)", root, k.comm.Size()-1)
	}
	return nil
}

// data returns the first count elements of dt in buf.
func (k *collCall) data(what string, buf []byte, count int, dt Datatype) ([]byte, error) {
	if dt.t == nil || dt.t.derived {
		return k.derivedData(what, buf, count, dt)
	}
	if dt.Size() <= 0 {
		return nil, k.fail(ClassType, "the %s datatype is invalid", what)
	}
	if count < 0 {
		return nil, k.fail(ClassCount, "the %s count %d is negative", what, count)
	}
	if count > len(buf)/dt.Size() {
		if IsInPlace(buf) {
			// The in-place forms pass InPlace where the call allows it, never here.
			return nil, k.fail(ClassBuffer, "InPlace is not allowed as %s: this call has no in-place form there", bufName(what))
		}
		return nil, k.fail(ClassBuffer, "%s of %d bytes is too small for %d elements of %s", bufName(what), len(buf), count, dt.Name())
	}
	return buf[:count*dt.Size()], nil
}

// rootName names the intercommunicator roots Root and ProcNull.
func rootName(root int) string {
	if root == Root {
		return "Root"
	}
	return "ProcNull"
}

// bufName names a call's buffer: "the send buffer", or "the buffer" of a
// call with one.
func bufName(what string) string {
	if what == "" {
		return "the buffer"
	}
	return "the " + what + " buffer"
}

// vector turns per-rank counts and displacements in elements of dt into
// bytes and checks that each block lies inside a buffer of n bytes. A
// block of no elements touches no memory, so its displacement may be
// anything: it is taken as 0.
func (k *collCall) vector(what string, counts, displs []int, dt Datatype, n int) ([]int, []int, error) {
	return k.blocks(what, k.comm.Size(), "rank", counts, displs, dt, n)
}

// blocks is vector for parts blocks, one per rank or neighbour (per).
func (k *collCall) blocks(what string, parts int, per string, counts, displs []int, dt Datatype, n int) ([]int, []int, error) {
	if displs == nil && len(counts) != parts {
		return nil, nil, k.fail(ClassArg, "%d %s counts for %d %ss (want one per %s)", len(counts), what, parts, per, per)
	}
	if len(counts) != parts || (displs != nil && len(displs) != parts) {
		return nil, nil, k.fail(ClassArg, "%d %s counts and %d displacements for %d %ss (want one per %s)", len(counts), what, len(displs), parts, per, per)
	}
	if dt.t == nil || dt.t.derived {
		if err := k.derivedVector(what, dt); err != nil {
			return nil, nil, err
		}
	}
	bc, bd := make([]int, parts), make([]int, parts)
	off := 0
	for i := range parts {
		d := off
		if displs != nil {
			d = displs[i]
		}
		switch {
		case counts[i] < 0:
			return nil, nil, k.fail(ClassCount, "%s count %d for %s %d is negative", what, counts[i], per, i)
		case counts[i] == 0:
			continue
		case d < 0 || (d+counts[i])*dt.Size() > n:
			return nil, nil, k.fail(ClassBuffer, "%s block of %s %d (%d elements at %d) lies outside the buffer of %d elements",
				what, per, i, counts[i], d, n/dt.Size())
		}
		bc[i], bd[i] = counts[i]*dt.Size(), d*dt.Size()
		off += counts[i]
	}
	if what == "receive" {
		if err := k.disjoint(per, bc, bd, dt.Size()); err != nil {
			return nil, nil, err
		}
	}
	return bc, bd, nil
}

// disjoint fails if two receive blocks, bc[i] bytes at bd[i], share a
// byte: MPI makes a call that writes one place twice erroneous, and the
// result would be whichever block landed last. Blocks in the order of
// their displacements, the common case, are checked without a sort.
func (k *collCall) disjoint(per string, bc, bd []int, size int) error {
	prev := -1
	for i := range bd {
		if bc[i] == 0 {
			continue
		}
		if prev >= 0 {
			if bd[i] < bd[prev] {
				return k.disjointSorted(per, bc, bd, size)
			}
			if bd[i] < bd[prev]+bc[prev] {
				return k.overlap(per, prev, i, bc, bd, size)
			}
		}
		prev = i
	}
	return nil
}

// disjointSorted is disjoint for blocks out of order: sorted by
// displacement, a block overlaps another only if it overlaps the next.
func (k *collCall) disjointSorted(per string, bc, bd []int, size int) error {
	var order []int
	for i := range bd {
		if bc[i] > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(bd[a], bd[b]) })
	for j := 1; j < len(order); j++ {
		if a, b := order[j-1], order[j]; bd[b] < bd[a]+bc[a] {
			return k.overlap(per, a, b, bc, bd, size)
		}
	}
	return nil
}

// overlap is the error of receive blocks a and b that share a byte.
func (k *collCall) overlap(per string, a, b int, bc, bd []int, size int) error {
	return k.fail(ClassBuffer, "the receive blocks of %s %d (%d elements at %d) and %s %d (%d elements at %d) overlap: each element may receive once",
		per, a, bc[a]/size, bd[a]/size, per, b, bc[b]/size, bd[b]/size)
}

// match checks that a block sent and a block received have the same size.
func (k *collCall) match(sendBytes, recvBytes int) error {
	if sendBytes != recvBytes {
		return k.fail(ClassCount, "this rank sends blocks of %d bytes but receives blocks of %d: the counts or datatypes disagree", sendBytes, recvBytes)
	}
	return nil
}

// apart fails if a and b share memory: the in-place form is the way to
// reduce or gather into the same buffer. An intercommunicator's
// collectives have none, and their error says so, as separate's does.
func (k *collCall) apart(a, b []byte) error {
	if !overlap(a, b) {
		return nil
	}
	if k.comm != nil && k.comm.inter != nil {
		return k.noInPlaceOverlap()
	}
	return k.fail(ClassBuffer, "the send and receive buffers overlap (use the in-place form)")
}

// apartV is apart for a v-form, whose blocks must be apart, not its
// buffers (vBlocksMeet).
func (k *collCall) apartV(send []byte, sc, sd []int, recv []byte, rc, rd []int) error {
	if !vBlocksMeet(send, sc, sd, recv, rc, rd) {
		return nil
	}
	return k.apart(send, recv)
}

// separate is apart for the calls that have no in-place form on any
// communicator (the neighbourhood collectives, ReduceLocal): its error
// does not send the program to one.
func (k *collCall) separate(a, b []byte) error {
	if !overlap(a, b) {
		return nil
	}
	return k.noInPlaceOverlap()
}

func (k *collCall) noInPlaceOverlap() error {
	return k.fail(ClassBuffer, "the send and receive buffers overlap (this call has no in-place form: pass buffers that share no memory)")
}

// overlap reports whether a and b share a byte.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

func (k *collCall) onlyAtRoot(root int, what []byte) error {
	if IsInPlace(what) && k.comm.rank != root {
		return k.fail(ClassBuffer, "InPlace is allowed only at the root")
	}
	return nil
}

// Barrier returns once every rank of comm has called it: of both groups,
// on an intercommunicator.
func (*realAPI) Barrier(comm *Comm) error {
	return barrierCall(nil, comm)
}

// barrierCall is Barrier, blocking when s is nil, else started as s says.
func barrierCall(s *collStart, comm *Comm) error {
	if comm != nil && comm.inter != nil {
		return interBarrier(s, comm)
	}
	k, err := startColl(s, &nameBarrier, comm)
	if err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collBarrier})
}

func errorsFirst(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
