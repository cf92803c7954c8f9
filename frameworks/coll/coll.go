// Package coll is the collective operations framework. Its components are
// queried for every communicator; for each collective the module of the
// highest-priority component that provides it runs, built on the
// point-to-point engine.
//
// The framework sees communicators and buffers as narrowly as it can: a
// Comm is a rank, a size and point-to-point on the communicator's own
// collective context; buffers are bytes, counts and displacements are in
// bytes, and a reduction is an Op already bound to its element type. So
// components import this package, mca and params only, never pmpi.
package coll

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gompi/gompi/mca"
)

// Name is the framework's name, and the name of its selection parameter.
const Name = "coll"

// APIVersion is the version of the coll component interface.
func APIVersion() mca.Version { return mca.Version{Major: 1, Minor: 0, Patch: 0} }

func init() {
	mca.RegisterFramework(mca.FrameworkSpec{
		Name:        Name,
		Version:     APIVersion(),
		Description: "collective operations, chosen per communicator",
		Accepts:     mca.Implements[Component](),
		Plugin:      newPluginComponent,
	})
}

// BaseComponent is the coll framework's base component. Every coll component
// embeds it; it embeds the MCA base.
type BaseComponent struct {
	mca.BaseComponent
}

// Info is the identity of a coll component built against this version of
// the framework, with its constructor; pass it to mca.Register.
func Info(name string, version mca.Version, priority int, newComponent func() mca.Component) mca.Info {
	return mca.NewInfo(Name, APIVersion(), name, version, priority, newComponent)
}

// Component is what a coll component implements. After the MCA lifecycle
// has selected it for the process, CommQuery is asked about every
// communicator the process creates.
type Component interface {
	mca.Component
	collBase() *BaseComponent
	// CommQuery offers a module for c with a priority, or declines with
	// a nil module. It runs on every member of c with the same answers
	// expected: a component must decide from what all members see alike
	// (size, parameters, q), never from local state.
	CommQuery(c Comm, q Query) (int, *Module, error)
}

// Query is what Build tells a component about a communicator besides the
// communicator itself. It is a struct so that the framework can say more
// later without changing every component's signature.
type Query struct {
	// Priority is the component's priority for the process; CommQuery
	// returns it or its own.
	Priority int
	// Rules is the communicator's decision table from the decider
	// component, nil if there is none or it failed: components then use
	// their built-in decision. Every member of the communicator gets the
	// same table (Build checks).
	Rules *Rules
	// Host is what Build was told of the ranks' host.
	Host
}

// Host is what every member of a communicator knows alike about where the
// ranks run, for decisions that depend on it.
type Host struct {
	// Oversubscribed: waiting ranks yield their CPU (the host's ranks
	// outnumber its CPUs, or mpi_yield_when_idle says so), so a message
	// may wait for a context switch: algorithms in which each rank waits
	// fewer times win.
	Oversubscribed bool
	// OneNode: every member of the communicator runs on this node, so
	// its members may share memory.
	OneNode bool
	// Nodes gives, by rank in the communicator, the index of the node it
	// runs on: nodes are numbered 0, 1, ... in the order of their first
	// rank. Alike on every member; nil where the caller does not know.
	Nodes []int
	// ID names the communicator within the job, alike on every member
	// and never the name of another live communicator: for naming what
	// its members share ("<job>.<context>.<first member>").
	ID string
	// SessionDir is the job's session directory on this node, "" where
	// there is none: a place for files that the members on one node
	// share, alike on those members.
	SessionDir string
}

// Decider is a component that chooses algorithms rather than running them:
// Build asks the highest-priority candidate that is a Decider for a
// communicator's rules once, when the communicator is made, and hands them
// to every component's CommQuery. A Decider that runs no collectives
// returns a nil module from CommQuery. An error leaves the communicator
// with the built-in decision; the decider reports it itself.
type Decider interface {
	CommRules(c Comm) (*Rules, error)
}

//lint:ignore U1000 never called: it makes embedding BaseComponent the only way to implement Component
func (b *BaseComponent) collBase() *BaseComponent { return b }

// Comm is the view of a communicator that a collective needs. Ranks are
// the communicator's own; messages travel on its collective context, apart
// from the user's point-to-point traffic. Every method is safe for
// concurrent use.
type Comm interface {
	Rank() int
	Size() int
	// Name is the communicator's name, for logs: "world", "world.split.1".
	Name() string
	// Send sends buf to dest and returns once buf may be reused.
	Send(buf []byte, dest, tag int) error
	// Recv receives exactly len(buf) bytes from src: a message of
	// another length is an error (its MPI class says which way it
	// differs), the mark of counts that disagree between ranks.
	Recv(buf []byte, src, tag int) error
	// Isend and Irecv start the same operations; Wait completes them.
	Isend(buf []byte, dest, tag int) Request
	Irecv(buf []byte, src, tag int) Request
	// Wait completes every request and returns the first error. A request
	// is recycled once waited on: wait on each exactly once, and do not
	// touch it afterwards.
	Wait(reqs ...Request) error
}

// NonBlocking is a Comm that says whether the call on it serves a
// non-blocking or persistent collective's request, which runs at its
// start (Module.Start), at its Wait or in the background: its time then
// holds whatever the program did since the start, so a component that
// times calls to choose its algorithm leaves such calls out of its
// figures.
type NonBlocking interface {
	NonBlocking() bool
}

// Poller is a Comm whose members can be waited for without messages: a
// component whose members share memory calls Poll while it waits, so that
// the rank's point-to-point traffic keeps moving (MPI's progress rule) and
// a member that died ends the wait.
type Poller interface {
	// Poll makes one round of progress on the rank's point-to-point
	// traffic and returns an error naming a member of the communicator
	// that is known to have failed.
	Poll() error
	// Blocked tells the rank's state report (what gompirun prints on
	// SIGQUIT or a timeout) that the calling goroutine waits, inside
	// collective (one of Collectives), for member peer; calling the
	// function it returns ends that. It walks the stack: call it once a
	// wait has lasted, not on every wait.
	Blocked(collective string, peer int) (done func())
}

// Request is a pending Isend or Irecv of a Comm.
type Request interface {
	// Done reports whether the request completed, without waiting.
	Done() bool
	// Wait is Comm.Wait of this request alone, without the slice that a
	// variadic call through an interface allocates.
	Wait() error
}

// Sendrecv sends to dest and receives from src at once. The receive is
// posted first, so a blocking send cannot deadlock with a peer doing the
// same: a small message is sent without a request.
func Sendrecv(c Comm, send []byte, dest int, recv []byte, src, tag int) error {
	r := c.Irecv(recv, src, tag)
	var err error
	if x, ok := c.(exchangeSender); ok {
		err = x.SendInExchange(send, dest, tag)
	} else {
		err = c.Send(send, dest, tag)
	}
	return errors.Join(err, r.Wait())
}

// exchangeSender is a Comm whose transport moves a large message in
// another way when its sender also receives (pmpi's: read by the
// receiver, never streamed through shared memory, where both CPUs copy).
type exchangeSender interface {
	// SendInExchange is Send, between a posted receive and its wait.
	SendInExchange(buf []byte, dest, tag int) error
}

// Op is a reduction bound to an element type.
type Op interface {
	// Reduce combines in into inout element by element: inout becomes
	// in ⊕ inout, where in holds the operand of the lower ranks. Both
	// hold whole elements; they do not overlap. in is read, never
	// written: it may be the caller's send buffer.
	Reduce(in, inout []byte)
	// Commutative reports whether the operands may be combined in any
	// order. A non-commutative operation must be applied in rank order.
	Commutative() bool
	// ElemSize is the size in bytes of the unit the operation combines:
	// one element of a datatype, or a record of several that the user's
	// operation reads together (mpi.Record). Every algorithm cuts a
	// vector only at its multiples, in rounds, segments and per-rank
	// shares alike, and hands Reduce whole units: the result must not
	// depend on the algorithm.
	ElemSize() int
}

// Exact reports whether op's result is the same however an algorithm
// groups its operands, which op says with a method Exact() bool: true for
// gompi's predefined operations but a floating-point or complex sum or
// product, whose last bits depend on the grouping. An Op without the
// method, a user's among them, is not exact.
func Exact(op Op) bool {
	e, ok := op.(interface{ Exact() bool })
	return ok && e.Exact()
}

// Module is what a component offers one communicator: any subset of the
// collectives, nil for those it leaves to the next component. Buffers
// never overlap: the caller resolves MPI's in-place forms before calling.
// Counts and displacements are in bytes. A buffer that only the root uses
// may be nil on the other ranks.
type Module struct {
	Barrier func(c Comm) error
	Bcast   func(c Comm, buf []byte, root int) error
	// Reduce leaves the result in recv at the root.
	Reduce    func(c Comm, send, recv []byte, op Op, root int) error
	Allreduce func(c Comm, send, recv []byte, op Op) error
	// Gather collects every rank's send into recv at the root, in rank
	// order: len(recv) is Size()*len(send) there.
	Gather  func(c Comm, send, recv []byte, root int) error
	Gatherv func(c Comm, send, recv []byte, counts, displs []int, root int) error
	// Scatter sends block i of the root's send to rank i: len(send) is
	// Size()*len(recv) at the root.
	Scatter    func(c Comm, send, recv []byte, root int) error
	Scatterv   func(c Comm, send []byte, counts, displs []int, recv []byte, root int) error
	Allgather  func(c Comm, send, recv []byte) error
	Allgatherv func(c Comm, send, recv []byte, counts, displs []int) error
	// Alltoall sends block i of send to rank i and receives block j of
	// recv from rank j; blocks are len(send)/Size() bytes.
	Alltoall  func(c Comm, send, recv []byte) error
	Alltoallv func(c Comm, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error
	// ReduceScatter reduces send (the sum of counts bytes) and leaves
	// counts[i] bytes of the result, from offset sum(counts[:i]), at rank i.
	ReduceScatter      func(c Comm, send, recv []byte, counts []int, op Op) error
	ReduceScatterBlock func(c Comm, send, recv []byte, op Op) error
	// Scan leaves at rank i the reduction of ranks 0 to i; Exscan that of
	// ranks 0 to i-1 (rank 0's recv is left as it was).
	Scan   func(c Comm, send, recv []byte, op Op) error
	Exscan func(c Comm, send, recv []byte, op Op) error

	// The neighbourhood collectives exchange with the ranks that nb, the
	// communicator's topology, names. NeighborAllgather sends send to
	// every destination and receives block j of recv, len(send) bytes,
	// from source j; NeighborAllgatherv receives counts[j] bytes at
	// displs[j]. NeighborAlltoall sends block i of send to destination i
	// and receives block j of recv from source j, the blocks all of one
	// size; NeighborAlltoallv takes per-neighbour counts and
	// displacements. Blocks of a neighbour that is not there are left untouched.
	NeighborAllgather  func(c Comm, nb Neighbors, send, recv []byte) error
	NeighborAllgatherv func(c Comm, nb Neighbors, send, recv []byte, counts, displs []int) error
	NeighborAlltoall   func(c Comm, nb Neighbors, send, recv []byte) error
	NeighborAlltoallv  func(c Comm, nb Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error

	// Alltoallw sends send[i] to rank i and receives recv[j] from rank j;
	// NeighborAlltoallw sends send[i] to destination i of nb and receives
	// recv[j] from source j. MPI gives each of these blocks a count, a
	// datatype and a displacement in bytes of its own; pmpi turns them
	// into the block's bytes before the call, a slice of the user's
	// buffer or a packed copy of a non-contiguous type's data, as it does
	// every datatype. A slice per block, rather than one buffer with byte
	// counts and displacements, keeps a packed copy apart from the
	// buffer it stands for and spares contiguous blocks any copy; passing
	// the datatypes down instead would give every component a packing
	// interface for these two calls alone, against the framework's rule
	// that modules see bytes.
	Alltoallw         func(c Comm, send, recv [][]byte) error
	NeighborAlltoallw func(c Comm, nb Neighbors, send, recv [][]byte) error

	// Concurrent says that the module's functions are pure point-to-point
	// on the Comm they are given and keep no state of the communicator's
	// that two calls could share unguarded: several may run at once, each
	// on a Comm of its own context (Table.Concurrent). A module whose
	// members share memory or sub-communicators leaves it false, and
	// serves the non-blocking and persistent calls one at a time, in start
	// order (Table.InOrder).
	Concurrent bool

	// Start, if set in a module that is not Concurrent, does at once what
	// it can of a non-blocking call that starts while no earlier call on
	// the communicator is outstanding at this rank, without waiting for
	// any other rank: its functions take the blocking functions' arguments
	// and return nil when the call is complete, ErrStarted when they did
	// its first part (its data written for the others) and the module's
	// blocking function, called next with the same arguments, finishes
	// it, and ErrNotStarted when they did nothing. A call that is done or
	// half done at its start leaves the program's computation nothing of
	// its own to wait for: with one P, nothing else would run it then.
	Start *Module

	// Ready, set in a Start table, reports whether the call that the
	// module's Start function began (ErrStarted) would now finish without
	// waiting for any other rank: the blocking function, called next,
	// then completes it at once. A Test of the call's request runs it
	// then; before, it leaves the call alone rather than hand it to a
	// goroutine.
	Ready func() bool

	// A module with neither Free nor Below keeps no state of one
	// communicator's and may be offered to several: Build never changes a
	// module it is given.

	// Free, if set, releases what the module holds when the communicator
	// is freed.
	Free func() error
	// Below, if set, is called once by Build, after stacking, with what
	// the lower-priority modules provide for each collective: a module
	// that serves some calls of a collective (small messages) passes the
	// others down, as a CoreDNS plugin calls the next handler.
	Below func(next *Module)
}

// Collective names, in the order tools list them.
var Collectives = []string{
	"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
	"allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block",
	"scan", "exscan", "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv",
	"alltoallw", "neighbor_alltoallw",
}

// numCollectives is len(Collectives), for the arrays indexed by it.
const numCollectives = 22

// take sets m's function for collective i (its index in Collectives) to
// src's and reports whether src has one; without one m is left as it was.
// A switch rather than reflection: Build runs at every Dup and Split, and
// a fresh communicator's first call waits for its slowest member's Build.
func (m *Module) take(i int, src *Module) bool {
	switch i {
	case 0:
		return put(&m.Barrier, src.Barrier, src.Barrier != nil)
	case 1:
		return put(&m.Bcast, src.Bcast, src.Bcast != nil)
	case 2:
		return put(&m.Reduce, src.Reduce, src.Reduce != nil)
	case 3:
		return put(&m.Allreduce, src.Allreduce, src.Allreduce != nil)
	case 4:
		return put(&m.Gather, src.Gather, src.Gather != nil)
	case 5:
		return put(&m.Gatherv, src.Gatherv, src.Gatherv != nil)
	case 6:
		return put(&m.Scatter, src.Scatter, src.Scatter != nil)
	case 7:
		return put(&m.Scatterv, src.Scatterv, src.Scatterv != nil)
	case 8:
		return put(&m.Allgather, src.Allgather, src.Allgather != nil)
	case 9:
		return put(&m.Allgatherv, src.Allgatherv, src.Allgatherv != nil)
	case 10:
		return put(&m.Alltoall, src.Alltoall, src.Alltoall != nil)
	case 11:
		return put(&m.Alltoallv, src.Alltoallv, src.Alltoallv != nil)
	case 12:
		return put(&m.ReduceScatter, src.ReduceScatter, src.ReduceScatter != nil)
	case 13:
		return put(&m.ReduceScatterBlock, src.ReduceScatterBlock, src.ReduceScatterBlock != nil)
	case 14:
		return put(&m.Scan, src.Scan, src.Scan != nil)
	case 15:
		return put(&m.Exscan, src.Exscan, src.Exscan != nil)
	case 16:
		return put(&m.NeighborAllgather, src.NeighborAllgather, src.NeighborAllgather != nil)
	case 17:
		return put(&m.NeighborAllgatherv, src.NeighborAllgatherv, src.NeighborAllgatherv != nil)
	case 18:
		return put(&m.NeighborAlltoall, src.NeighborAlltoall, src.NeighborAlltoall != nil)
	case 19:
		return put(&m.NeighborAlltoallv, src.NeighborAlltoallv, src.NeighborAlltoallv != nil)
	case 20:
		return put(&m.Alltoallw, src.Alltoallw, src.Alltoallw != nil)
	case 21:
		return put(&m.NeighborAlltoallw, src.NeighborAlltoallw, src.NeighborAlltoallw != nil)
	}
	return false
}

// put sets *dst to f if ok, and returns ok.
func put[F any](dst *F, f F, ok bool) bool {
	if ok {
		*dst = f
	}
	return ok
}

// Tag bases: each collective's messages carry its own tag, so that a
// message of one collective is never taken for another's even when an
// algorithm posts receives ahead.
const (
	TagBarrier = -10 - iota
	TagBcast
	TagReduce
	TagAllreduce
	TagGather
	TagGatherv
	TagScatter
	TagScatterv
	TagAllgather
	TagAllgatherv
	TagAlltoall
	TagAlltoallv
	TagReduceScatter
	TagReduceScatterBlock
	TagScan
	TagExscan
	TagNeighborAllgather
	TagNeighborAllgatherv
	TagNeighborAlltoall
	TagNeighborAlltoallv
	TagAlltoallw
	TagNeighborAlltoallw
	// TagRules carries Build's check that every member got the same rules.
	TagRules
	// TagShared carries a component's set-up of memory that the members
	// of a communicator share (coll sm's, at the first call it serves).
	TagShared
)

// TagName names the collective whose messages carry tag (TagBcast:
// "bcast"), or returns "" for a tag that is not a collective's.
func TagName(tag int) string {
	if i := TagBarrier - tag; i >= 0 && i < len(Collectives) {
		return Collectives[i]
	}
	switch tag {
	case TagRules:
		return "communicator creation"
	case TagShared:
		return "shared memory set-up"
	}
	return ""
}

// ErrNoProvider marks a collective that no selected component provides.
var ErrNoProvider = errors.New("no coll component provides this collective")

// ErrTooLong and ErrTooShort mark a rank's contribution that is longer or
// shorter than the one this rank expects, found by a component that moves
// data without messages: the ranks' counts or datatypes disagree. pmpi
// reports them as MPI_ERR_TRUNCATE and MPI_ERR_COUNT, as it does a
// collective's message of the wrong length.
var (
	ErrTooLong  = errors.New("more data than expected: the ranks' counts or datatypes disagree")
	ErrTooShort = errors.New("less data than expected: the ranks' counts or datatypes disagree")
)

// FailureMark is what a rank that failed in a collective sends in place of
// n bytes, so that the ranks waiting on it fail too instead of waiting
// for ever: a message failureMarkPad bytes longer than they receive, which
// they take as a failure mark, not as counts that disagree (IsFailureMark).
func FailureMark(n int) []byte { return make([]byte, n+failureMarkPad) }

// failureMarkPad is a prime: counts that disagree make a message longer
// by it only for a type of one byte, by that exact count.
const failureMarkPad = 4099

// IsFailureMark reports whether a message of sent bytes, where want were
// expected, is a FailureMark.
func IsFailureMark(sent, want int) bool { return sent == want+failureMarkPad }

// Payload is what a rank that may have met an error in a collective sends
// in place of buf: buf, or once err is set a failure mark. Such a rank goes
// on with every send and receive of its part, so that no peer waits for
// ever on it and every message sent is received, and its peers fail in
// turn instead of taking its data.
func Payload(buf []byte, err error) []byte {
	if err != nil {
		return FailureMark(len(buf))
	}
	return buf
}

// FirstError is err, or next if err is nil: the error a rank that goes on
// after one returns.
func FirstError(err, next error) error {
	if err != nil {
		return err
	}
	return next
}

// ErrPeerFailed marks a receive that got a FailureMark: the peer failed
// in the same collective, and its own error says why.
var ErrPeerFailed = errors.New("the peer failed in this collective and sent a failure mark in place of its data (its own error says why)")

// ErrRootsDisagree marks a rooted collective whose ranks passed different
// roots, found by a component that moves data without messages. pmpi
// reports it as MPI_ERR_ROOT.
var ErrRootsDisagree = errors.New("the ranks' roots disagree")

// ErrStarted and ErrNotStarted are what a Module.Start function returns
// when it did the first part of a call, or nothing of it.
var (
	ErrStarted    = errors.New("the collective's first part is done")
	ErrNotStarted = errors.New("the collective cannot start without waiting")
)

// Candidate is a component selected for the process, as the communicator
// set-up receives it from the MCA.
type Candidate struct {
	Name      string
	Component Component
	Priority  int
}

// Table is a communicator's collectives: for each one the function of the
// highest-priority module that provides it, and which component that is.
type Table struct {
	Module
	// providers, by the index in Collectives, name each collective's
	// component: 1 + its index in names, 0 for none. Indexes, not strings:
	// Build runs at every Dup and Split, and what it allocates is what a
	// fresh communicator's first calls pay for in collections and faults.
	providers [numCollectives]uint16
	names     []string
	// concurrent is the table of the Concurrent modules alone, for the
	// calls that run beside others on the same communicator.
	concurrent          Module
	concurrentProviders [numCollectives]uint16
	// inOrder marks the collectives whose provider is not Concurrent.
	inOrder [numCollectives]bool
	// starts holds each collective's provider's Start function, if any.
	starts  Module
	modules []*Module
	rules   *Rules
	// rulesDropped says the decider gave the members different rules.
	rulesDropped bool
	// readies holds the Ready of each collective's Start table, last: a
	// blocking call reads the fields above, which keep their lines.
	readies [numCollectives]func() bool
	// The usual few modules' storage, so that Build makes one object.
	namesIn   [4]string
	modulesIn [4]*Module
	belowIn   Module
}

// Build asks every candidate about c and stacks their modules, highest
// priority first; ties go to the earlier candidate. A collective no module
// provides is left nil and reported by Provider as "". If a candidate is a
// Decider, the communicator's rules come from it first (see Decider). host
// must be the same on every member.
func Build(c Comm, candidates []Candidate, host Host) (*Table, error) {
	type offer struct {
		name  string
		prio  int
		mod   *Module
		start *Module // its Start functions, if it runs in order
	}
	var store [8]offer // on the stack for the usual few components
	offers := store[:0]
	t := &Table{}
	t.modules = t.modulesIn[:0]
	rules, disagreed, err := commRules(c, candidates)
	if err != nil {
		return nil, err
	}
	t.rules, t.rulesDropped = rules, disagreed
	for _, cand := range candidates {
		prio, mod, err := cand.Component.CommQuery(c, Query{Priority: cand.Priority, Rules: rules, Host: host})
		if err != nil {
			_ = t.Free()
			return nil, fmt.Errorf("coll %s: query on %s: %w", cand.Name, c.Name(), err)
		}
		if mod == nil {
			continue
		}
		t.modules = append(t.modules, mod)
		if prio < 0 {
			continue // declined for c, as a negative component priority is
		}
		i := len(offers)
		for i > 0 && offers[i-1].prio < prio {
			i--
		}
		o := offer{name: cand.Name, prio: prio, mod: mod}
		if !mod.Concurrent {
			o.start = mod.Start
		}
		offers = slices.Insert(offers, i, o)
	}
	t.names = t.namesIn[:0]
	for _, o := range offers {
		t.names = append(t.names, o.name)
	}
	for i := range Collectives {
		for k, o := range offers {
			if t.Module.take(i, o.mod) {
				t.providers[i] = uint16(k + 1)
				t.inOrder[i] = !o.mod.Concurrent
				if o.start != nil && t.starts.take(i, o.start) {
					t.readies[i] = o.start.Ready
				}
				break
			}
		}
		for k, o := range offers {
			if o.mod.Concurrent && t.concurrent.take(i, o.mod) {
				t.concurrentProviders[i] = uint16(k + 1)
				break
			}
		}
	}
	usedBelow := false
	for i, o := range offers {
		if o.mod.Below == nil {
			continue
		}
		next := &t.belowIn
		if usedBelow {
			next = new(Module)
		}
		usedBelow = true
		for j := range Collectives {
			for _, p := range offers[i+1:] {
				if next.take(j, p.mod) {
					break
				}
			}
		}
		o.mod.Below(next)
	}
	return t, nil
}

// name is the component that providers' entry k stands for, "" for 0.
func (t *Table) name(k uint16) string {
	if k == 0 {
		return ""
	}
	return t.names[k-1]
}

// Provider names the component that serves collective (one of
// Collectives) on this communicator, or "" if none does.
func (t *Table) Provider(collective string) string {
	for i, name := range Collectives {
		if name == collective {
			return t.name(t.providers[i])
		}
	}
	return ""
}

// Concurrent is the table of the modules that may run several calls at
// once (Module.Concurrent): for each collective the function of the
// highest-priority such module, nil where none provides it.
func (t *Table) Concurrent() *Module { return &t.concurrent }

// InOrder reports whether collective i (its index in Collectives) is
// served by a module that is not Concurrent, such as sm's shared segment:
// a non-blocking call of it runs that module's blocking function on the
// communicator's own Comm, after every collective started on the
// communicator before it and before every one started after it, as the
// blocking calls run. Every member starts them in the same order, so
// every member runs them in the same order.
func (t *Table) InOrder(i int) bool { return t.inOrder[i] }

// Start is the table of the in-order providers' Start functions
// (Module.Start): for each collective its provider's, nil where it has
// none.
func (t *Table) Start() *Module { return &t.starts }

// Ready reports whether the call of collective i (its index in
// Collectives) that its in-order provider's Start function began would
// now finish at once (Module.Ready).
func (t *Table) Ready(i int) bool {
	f := t.readies[i]
	return f != nil && f()
}

// ConcurrentProvider names the component that serves collective in
// Concurrent, or "" if none does.
func (t *Table) ConcurrentProvider(collective string) string {
	for i, name := range Collectives {
		if name == collective {
			return t.name(t.concurrentProviders[i])
		}
	}
	return ""
}

// Providers lists "collective=component" for every collective, in the
// order of Collectives: what coll_base_verbose logs and tools show.
func (t *Table) Providers() []string {
	out := make([]string, len(Collectives))
	for i, name := range Collectives {
		p := t.name(t.providers[i])
		if p == "" {
			p = "none"
		}
		out[i] = name + "=" + p
	}
	return out
}

// Rules is the decision table the communicator's modules received, nil
// if there was none.
func (t *Table) Rules() *Rules { return t.rules }

// RulesDropped reports whether the decision component's rules differed
// between the members, so that none uses them.
func (t *Table) RulesDropped() bool { return t.rulesDropped }

// Free releases every module that was built, whether or not it serves a
// collective.
func (t *Table) Free() error {
	var errs []error
	for _, m := range t.modules {
		if m.Free == nil {
			continue
		}
		if err := m.Free(); err != nil {
			errs = append(errs, err)
		}
	}
	t.modules = nil
	return errors.Join(errs...)
}
