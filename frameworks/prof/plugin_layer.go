package prof

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/pmpi"
)

// fnIndex is a function's index in Functions.
type fnIndex uint32

// rpcTimeout bounds one call to the tool: a tool that hangs is treated as
// dead rather than stalling the rank for ever. It is generous, since a
// loaded machine may keep a tool from running for seconds.
const rpcTimeout = 60 * time.Second

// event is one recorded call, as the layer buffers it: plain values, so
// that recording a call allocates nothing. The sender turns a batch of
// them into protobuf messages.
type event struct {
	fn         fnIndex
	peer, tag  int32
	level      int32 // Pcontrol's
	err        bool
	bytes      int64
	comm       string
	start, end int64 // Ticks readings; the sender converts them to ns since the clock's zero
}

// recorder is the layer of an out-of-process tool: it embeds Base, and
// every call (record_gen.go, and the few below) records an event in the
// current batch. A full batch goes to a queue that one goroutine sends
// from, so a call never waits for a round trip; it waits only when the
// tool has fallen behind by a whole queue of batches.
type recorder struct {
	Base
	plugin *mca.Plugin
	tool   profpb.ToolClient
	cfg    streamConfig
	log    hclog.Logger
	clock  Clock

	// on is set while the stream is open and the tool alive; a call that
	// sees it clear passes through unrecorded.
	on   atomic.Bool
	dead atomic.Bool // a call to the tool failed

	mu     sync.Mutex // guards buf and closed, and orders sends on full
	buf    []event
	closed bool
	full   chan []event  // batches for the sender, in the order of the calls
	free   chan []event  // emptied batches, for reuse
	done   chan struct{} // closed when the sender has sent the last batch

	started  atomic.Bool // the stream was opened: Finalize closes it
	finished sync.Once
	// early is the last level given to Pcontrol before the stream opened
	// (mpi hands the stack one made before Init); start sends it first.
	early atomic.Pointer[int32]
}

func newRecorder(next pmpi.API, p *mca.Plugin, tool profpb.ToolClient, cfg streamConfig, log hclog.Logger) *recorder {
	return &recorder{
		Base: Base{Next: next}, plugin: p, tool: tool, cfg: cfg, log: log, clock: NewClock(),
		full: make(chan []event, cfg.queue), free: make(chan []event, cfg.queue+1), done: make(chan struct{}),
	}
}

// now reads the tick counter: two reads per call, where the monotonic
// clock's read costs four times as much on a virtual machine.
func (layer *recorder) now() int64 { return Ticks() }

// begin starts timing a call: its start, or -1 when nothing is recorded.
func (layer *recorder) begin() int64 {
	if !layer.on.Load() {
		return -1
	}
	return layer.now()
}

// record adds the call begun at t0 to the current batch. A call whose peer
// is ProcNull moves nothing: it is recorded with 0 bytes, as stats counts
// it (the generated recorders pass the buffer's size).
func (layer *recorder) record(t0 int64, fn fnIndex, peer, tag int, bytes int, comm *pmpi.Comm, err error) {
	if t0 < 0 {
		return
	}
	if peer == pmpi.ProcNull {
		bytes = 0
	}
	e := event{fn: fn, peer: int32(peer), tag: int32(tag), bytes: int64(bytes), err: err != nil, start: t0, end: layer.now()}
	if comm != nil {
		e.comm = comm.Name()
	}
	layer.add(e)
}

// add appends e to the batch and queues the batch when it is full. The
// queueing happens under the lock, so batches queue in the order of
// their events; a call blocks here only when the queue is full.
func (layer *recorder) add(e event) {
	layer.mu.Lock()
	defer layer.mu.Unlock()
	if layer.closed {
		return
	}
	if layer.buf == nil {
		layer.buf = layer.newBatch()
	}
	layer.buf = append(layer.buf, e)
	if len(layer.buf) >= layer.cfg.batch {
		layer.full <- layer.buf
		layer.buf = nil
	}
}

func (layer *recorder) newBatch() []event {
	select {
	case b := <-layer.free:
		return b[:0]
	default:
		return make([]event, 0, layer.cfg.batch)
	}
}

// send is the sender goroutine: it sends each batch with one Record. After
// a failure it drains the queue unsent, so that no call blocks on a dead
// tool.
func (layer *recorder) send() {
	defer close(layer.done)
	msg := &profpb.EventBatch{}
	var pool []profpb.Event // the messages' storage, reused batch after batch
	for b := range layer.full {
		if !layer.dead.Load() {
			if cap(pool) < len(b) {
				pool = make([]profpb.Event, len(b))
			}
			pool = pool[:len(b)]
			msg.Events = msg.Events[:0]
			// Ticks to ns since the zero, at the rate measured so far: the
			// longer the run, the better the estimate.
			rate, t0 := layer.clock.Rate(), layer.clock.Ticks0()
			ns := func(t int64) int64 { return int64(float64(t-t0) * rate) }
			for i, e := range b {
				pool[i] = profpb.Event{Fn: uint32(e.fn), Peer: e.peer, Tag: e.tag, Bytes: e.bytes, Comm: e.comm,
					StartNs: ns(e.start), EndNs: ns(e.end), Error: e.err, Level: e.level}
				msg.Events = append(msg.Events, &pool[i])
			}
			ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
			_, err := layer.tool.Record(ctx, msg)
			cancel()
			if err != nil {
				layer.fail("record", err)
			}
		}
		select {
		case layer.free <- b:
		default:
		}
	}
}

// fail records the tool's failure (the plugin logs it once, with its path
// and last stderr lines) and stops recording: the job goes on without it.
func (layer *recorder) fail(step string, err error) {
	layer.on.Store(false)
	layer.dead.Store(true)
	_ = layer.plugin.Fail(step, err)
}

// Init passes through, then opens the stream; Init is its first event.
func (layer *recorder) Init() error {
	t0 := layer.now()
	err := layer.Next.Init()
	if err == nil {
		layer.start(t0)
	}
	return err
}

// InitThread is Init with a thread level.
func (layer *recorder) InitThread(required pmpi.ThreadLevel) (pmpi.ThreadLevel, error) {
	t0 := layer.now()
	got, err := layer.Next.InitThread(required)
	if err == nil {
		layer.start(t0)
	}
	return got, err
}

// start tells the tool the rank, the job and the function table, starts
// the sender and records Init, begun at t0.
func (layer *recorder) start(t0 int64) {
	world := pmpi.Real().CommWorld()
	names := make([]string, len(Functions))
	for i, f := range Functions {
		names[i] = f.Name
	}
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	_, err := layer.tool.Start(ctx, &profpb.StartRequest{
		JobId: pmpi.JobID(), Rank: int32(world.Rank()), Size: int32(world.Size()), Functions: names,
		StartUnixNs: layer.clock.Zero().UnixNano(), ApiMajor: profpb.APIMajor, ApiMinor: profpb.APIMinor,
	})
	if err != nil {
		layer.fail("start", err)
		return
	}
	go layer.send()
	layer.started.Store(true)
	layer.on.Store(true)
	if lv := layer.early.Swap(nil); lv != nil {
		layer.add(event{fn: fnPcontrol, peer: -1, tag: -1, level: *lv, start: t0, end: t0})
	}
	layer.record(t0, fnInit, -1, -1, 0, nil, nil)
}

// Pcontrol takes its place in the stream, then passes down. A level
// given before the stream opens is kept for it: the tool sees it just
// before Init.
func (layer *recorder) Pcontrol(level int) error {
	t0 := layer.begin()
	if t0 < 0 && !layer.started.Load() {
		lv := int32(level)
		layer.early.Store(&lv)
	}
	err := layer.Next.Pcontrol(level)
	if t0 >= 0 {
		layer.add(event{fn: fnPcontrol, peer: -1, tag: -1, level: int32(level), err: err != nil, start: t0, end: layer.now()})
	}
	return err
}

// Finalize records itself (ending now: the stream closes before the real
// Finalize runs), sends the last batch, asks the tool for its report and
// announces the report's files; then it passes down. A failed tool does
// not fail Finalize: the plugin has logged its failure.
func (layer *recorder) Finalize() error {
	if layer.started.Load() {
		layer.record(layer.begin(), fnFinalize, -1, -1, 0, nil, nil)
		layer.finished.Do(layer.finish)
	}
	return layer.Next.Finalize()
}

// finish closes the stream and collects the tool's report.
func (layer *recorder) finish() {
	layer.mu.Lock()
	layer.closed = true
	if len(layer.buf) > 0 {
		layer.full <- layer.buf
		layer.buf = nil
	}
	close(layer.full)
	layer.mu.Unlock()
	<-layer.done
	if layer.dead.Load() {
		return
	}
	layer.on.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	rep, err := layer.tool.Finish(ctx, &profpb.FinishRequest{})
	if err != nil {
		layer.fail("finish", err)
		return
	}
	if s := rep.GetSummary(); s != "" {
		layer.log.Info("report", "summary", s)
	}
	for _, path := range rep.GetPaths() {
		// gompirun lists the reports when the job ends; alone, say it here.
		if told, err := pmpi.Announce(path); !told || err != nil {
			fmt.Fprintf(os.Stderr, "gompi prof %s: wrote %s\n", layer.plugin.Path(), path)
		}
	}
}

// bytesOf is the bytes of count elements of dt.
func bytesOf(count int, dt pmpi.Datatype) int { return count * dt.Size() }

// bytesOfEach is the bytes of a w-collective's blocks, each of its own
// datatype.
func bytesOfEach(counts []int, dts []pmpi.Datatype) int {
	n := 0
	for i := range min(len(counts), len(dts)) {
		n += bytesOf(counts[i], dts[i])
	}
	return n
}

func sum(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
