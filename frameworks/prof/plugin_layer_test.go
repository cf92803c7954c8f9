package prof

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/pmpi"
)

// fakeTool is an in-process Tool client that keeps what it is sent. Its
// Record fails from batch failAt on (1-based; 0 never).
type fakeTool struct {
	mu       sync.Mutex
	start    *profpb.StartRequest
	batches  [][]*profpb.Event
	finished int
	failAt   int
}

func (f *fakeTool) Start(_ context.Context, in *profpb.StartRequest, _ ...grpc.CallOption) (*profpb.StartReply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.start = in
	return &profpb.StartReply{}, nil
}

func (f *fakeTool) Record(_ context.Context, in *profpb.EventBatch, _ ...grpc.CallOption) (*profpb.RecordReply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAt > 0 && len(f.batches)+1 >= f.failAt {
		return nil, errors.New("tool gone")
	}
	var b []*profpb.Event
	for _, e := range in.GetEvents() {
		c := &profpb.Event{Fn: e.GetFn(), Peer: e.GetPeer(), Tag: e.GetTag(), Bytes: e.GetBytes(), Comm: e.GetComm(),
			Level: e.GetLevel(), StartNs: e.GetStartNs(), EndNs: e.GetEndNs(), Error: e.GetError()}
		b = append(b, c) // the host reuses its messages
	}
	f.batches = append(f.batches, b)
	return &profpb.RecordReply{}, nil
}

func (f *fakeTool) Finish(context.Context, *profpb.FinishRequest, ...grpc.CallOption) (*profpb.Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished++
	return &profpb.Report{}, nil
}

func (f *fakeTool) events() []*profpb.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []*profpb.Event
	for _, b := range f.batches {
		all = append(all, b...)
	}
	return all
}

// below is the layer under the recorder in these tests: pmpi's real API
// (initialised by TestMain as a singleton), with Init and Finalize that
// do nothing.
type below struct{ Base }

func (below) Init() error     { return nil }
func (below) Finalize() error { return nil }

func newTestRecorder(tool profpb.ToolClient, batch, queue int) *recorder {
	return newRecorder(below{Base{Next: pmpi.Real()}}, &mca.Plugin{}, tool, streamConfig{batch: batch, queue: queue}, hclog.NewNullLogger())
}

func TestRecorderStreamsEveryCallInOrder(t *testing.T) {
	tool := &fakeTool{}
	layer := newTestRecorder(tool, 3, 2)
	if err := layer.Init(); err != nil {
		t.Fatal(err)
	}
	self := layer.CommSelf()
	dt := pmpi.TypeOf[int64]()
	buf := make([]byte, 16)
	// One goroutine's calls keep their order among the others'.
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				if err := layer.Pcontrol(g*1000 + i); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := layer.Bcast(buf, 2, dt, 0, self); err != nil {
		t.Fatal(err)
	}
	if err := layer.Finalize(); err != nil {
		t.Fatal(err)
	}
	if tool.start == nil || len(tool.start.GetFunctions()) != len(Functions) || tool.start.GetSize() != 1 {
		t.Fatalf("start %+v", tool.start)
	}
	if tool.finished != 1 {
		t.Errorf("Finish called %d times", tool.finished)
	}
	for i, b := range tool.batches {
		if len(b) > 3 {
			t.Errorf("batch %d has %d events; the batch is 3", i, len(b))
		}
	}
	evs := tool.events()
	if n := 1 + 1 + goroutines*calls + 1 + 1; len(evs) != n { // Init, CommSelf, the Pcontrols, Bcast, Finalize
		t.Fatalf("%d events, want %d", len(evs), n)
	}
	if evs[0].GetFn() != uint32(fnInit) || evs[1].GetFn() != uint32(fnCommSelf) || evs[len(evs)-1].GetFn() != uint32(fnFinalize) {
		t.Errorf("first and last events %v %v %v", evs[0], evs[1], evs[len(evs)-1])
	}
	if bc := evs[len(evs)-2]; bc.GetFn() != uint32(fnBcast) || bc.GetBytes() != 16 || bc.GetPeer() != 0 || bc.GetTag() != -1 || bc.GetComm() != "MPI_COMM_SELF" {
		t.Errorf("Bcast recorded as %v", bc)
	}
	next := make([]int32, goroutines)
	for _, e := range evs[2 : len(evs)-2] {
		g, i := e.GetLevel()/1000, e.GetLevel()%1000
		if e.GetFn() != uint32(fnPcontrol) || i != next[g] {
			t.Fatalf("event %v out of its goroutine's order (want level %d)", e, g*1000+next[g])
		}
		next[g]++
	}
	// After Finalize, calls pass through unrecorded.
	if err := layer.Pcontrol(1); err != nil {
		t.Fatal(err)
	}
	if len(tool.events()) != len(evs) {
		t.Error("a call after Finalize was recorded")
	}
}

// A Pcontrol before Init, when the stream is not open yet, reaches the
// tool first, the last level given, with Init's start.
func TestRecorderSendsAnEarlyPcontrol(t *testing.T) {
	tool := &fakeTool{}
	layer := newTestRecorder(tool, 4, 2)
	for _, level := range []int{2, 0} {
		if err := layer.Pcontrol(level); err != nil {
			t.Fatal(err)
		}
	}
	if err := layer.Init(); err != nil {
		t.Fatal(err)
	}
	if err := layer.Finalize(); err != nil {
		t.Fatal(err)
	}
	evs := tool.events()
	if len(evs) != 3 || evs[0].GetFn() != uint32(fnPcontrol) || evs[0].GetLevel() != 0 ||
		evs[1].GetFn() != uint32(fnInit) || evs[0].GetStartNs() != evs[1].GetStartNs() {
		t.Fatalf("events %v, want Pcontrol(0) at Init's start, Init, Finalize", evs)
	}
}

func TestRecorderGoesOnWithoutAFailedTool(t *testing.T) {
	tool := &fakeTool{failAt: 2}
	layer := newTestRecorder(tool, 2, 1)
	if err := layer.Init(); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := layer.Pcontrol(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := layer.Finalize(); err != nil {
		t.Fatalf("Finalize failed with the tool: %v", err)
	}
	if len(tool.batches) != 1 || tool.finished != 0 {
		t.Errorf("%d batches recorded, Finish called %d times; want 1 and 0", len(tool.batches), tool.finished)
	}
	if !layer.dead.Load() || layer.on.Load() {
		t.Error("the layer did not stop recording")
	}
}

func TestRecorderEventsNameTheirCall(t *testing.T) {
	// The generated recorders take the peer, tag and bytes from the
	// arguments' names: check a call of each shape.
	tool := &fakeTool{}
	layer := newTestRecorder(tool, 100, 1)
	if err := layer.Init(); err != nil {
		t.Fatal(err)
	}
	self := layer.CommSelf()
	dt := pmpi.TypeOf[int32]()
	send, recv := make([]byte, 12), make([]byte, 12)
	if _, err := layer.Sendrecv(send, 3, dt, 0, 5, recv, 3, dt, 0, 5, self); err != nil {
		t.Fatal(err)
	}
	if err := layer.Allgather(send, 3, dt, recv, 3, dt, self); err != nil {
		t.Fatal(err)
	}
	if _, err := layer.CommRank(nil); err == nil {
		t.Fatal("CommRank(nil) succeeded")
	}
	if err := layer.Finalize(); err != nil {
		t.Fatal(err)
	}
	got := tool.events()[2:5]
	want := []*profpb.Event{
		{Fn: uint32(fnSendrecv), Peer: 0, Tag: 5, Bytes: 12, Comm: "MPI_COMM_SELF"},
		{Fn: uint32(fnAllgather), Peer: -1, Tag: -1, Bytes: 12, Comm: "MPI_COMM_SELF"},
		{Fn: uint32(fnCommRank), Peer: -1, Tag: -1, Error: true},
	}
	for i := range want {
		g := got[i]
		if g.GetFn() != want[i].Fn || g.GetPeer() != want[i].Peer || g.GetTag() != want[i].Tag || g.GetBytes() != want[i].Bytes || g.GetComm() != want[i].Comm ||
			g.GetError() != want[i].Error {
			t.Errorf("event %d: %v, want %v", i, g, want[i])
		}
	}
}

// TestRecorderProcNullMovesNothing: a call whose peer is ProcNull reaches
// the tool with that peer and 0 bytes, as stats counts it.
func TestRecorderProcNullMovesNothing(t *testing.T) {
	tool := &fakeTool{}
	layer := newTestRecorder(tool, 100, 1)
	if err := layer.Init(); err != nil {
		t.Fatal(err)
	}
	self := layer.CommSelf()
	dt := pmpi.TypeOf[int32]()
	buf := make([]byte, 12)
	const null = pmpi.ProcNull
	var reqs []*pmpi.Request
	for _, start := range []func() (*pmpi.Request, error){
		func() (*pmpi.Request, error) { return layer.Isend(buf, 3, dt, null, 5, self) },
		func() (*pmpi.Request, error) { return layer.Issend(buf, 3, dt, null, 5, self) },
		func() (*pmpi.Request, error) { return layer.Irecv(buf, 3, dt, null, 5, self) },
	} {
		r, err := start()
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	if err := layer.Send(buf, 3, dt, null, 5, self); err != nil {
		t.Fatal(err)
	}
	if err := layer.Ssend(buf, 3, dt, null, 5, self); err != nil {
		t.Fatal(err)
	}
	if _, err := layer.Recv(buf, 3, dt, null, 5, self); err != nil {
		t.Fatal(err)
	}
	if _, err := layer.Sendrecv(buf, 3, dt, null, 5, buf, 3, dt, null, 5, self); err != nil {
		t.Fatal(err)
	}
	if err := layer.WaitAll(reqs, nil); err != nil {
		t.Fatal(err)
	}
	if err := layer.Finalize(); err != nil {
		t.Fatal(err)
	}
	p2p := map[fnIndex]bool{fnIsend: true, fnIssend: true, fnIrecv: true, fnSend: true, fnSsend: true, fnRecv: true, fnSendrecv: true}
	seen := 0
	for _, e := range tool.events() {
		if !p2p[fnIndex(e.GetFn())] {
			continue
		}
		seen++
		if e.GetPeer() != null || e.GetBytes() != 0 {
			t.Errorf("%s on ProcNull: peer %d, %d bytes; want peer %d, 0 bytes", Functions[e.GetFn()].Name, e.GetPeer(), e.GetBytes(), null)
		}
	}
	if seen != len(p2p) {
		t.Errorf("%d point-to-point events, want %d", seen, len(p2p))
	}
}
