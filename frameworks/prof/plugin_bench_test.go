package prof

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// discardTool is a Tool client that drops every batch at once.
type discardTool struct{}

func (discardTool) Start(context.Context, *profpb.StartRequest, ...grpc.CallOption) (*profpb.StartReply, error) {
	return &profpb.StartReply{}, nil
}

func (discardTool) Record(context.Context, *profpb.EventBatch, ...grpc.CallOption) (*profpb.RecordReply, error) {
	return &profpb.RecordReply{}, nil
}

func (discardTool) Finish(context.Context, *profpb.FinishRequest, ...grpc.CallOption) (*profpb.Report, error) {
	return &profpb.Report{}, nil
}

// BenchmarkPluginLayer is what the recording layer adds to a call: a cheap
// call (CommSize on self) through the pass-through Base and through the
// recorder, whose tool drops the batches (the sender's work, on its own
// goroutine, is included but not the round trip), from 1 and from 4
// goroutines at once.
func BenchmarkPluginLayer(b *testing.B) {
	for _, tc := range []struct {
		name string
		api  func() (pmpi.API, func())
	}{
		{"base", func() (pmpi.API, func()) { return below{Base{Next: pmpi.Real()}}, func() {} }},
		{"recorder", func() (pmpi.API, func()) {
			l := newRecorder(below{Base{Next: pmpi.Real()}}, &mca.Plugin{}, discardTool{}, streamConfig{batch: 1024, queue: 4}, hclog.NewNullLogger())
			if err := l.Init(); err != nil {
				b.Fatal(err)
			}
			return l, func() { _ = l.Finalize() }
		}},
	} {
		b.Run(tc.name+"/commsize", func(b *testing.B) {
			api, done := tc.api()
			defer done()
			self := api.CommSelf()
			for b.Loop() {
				if _, err := api.CommSize(self); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/commsize-parallel", func(b *testing.B) {
			api, done := tc.api()
			defer done()
			self := api.CommSelf()
			b.SetParallelism(2) // 2 x GOMAXPROCS goroutines
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := api.CommSize(self); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// jsonlPlugin builds examples/plugins/mca_prof_jsonl into a directory of
// the benchmark's own (go build's cache makes it quick after the first).
func jsonlPlugin(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "mca_prof_jsonl"), "../../examples/plugins/mca_prof_jsonl").CombinedOutput()
	if err != nil {
		b.Fatalf("go build mca_prof_jsonl: %v\n%s", err, out)
	}
	return dir
}

// openJSONL loads the component system with the jsonl plugin on the path,
// opens and selects it, and returns the prof framework.
func openJSONL(b *testing.B, dir string, settings ...params.Setting) (*mca.System, *pluginComponent) {
	b.Helper()
	in := params.Inputs{CommandLine: append([]params.Setting{
		{Name: "mca_base_component_path", Value: dir}, {Name: Name, Value: "jsonl"}}, settings...)}
	sys, err := mca.Load(mca.Options{Logger: hclog.NewNullLogger()}, in)
	if err != nil {
		b.Fatal(err)
	}
	fw, err := sys.Framework(Name)
	if err != nil {
		b.Fatal(err)
	}
	if err := fw.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	sel, err := fw.Select(context.Background())
	if err != nil || len(sel) != 1 {
		b.Fatalf("selected %v, %v", sel, err)
	}
	return sys, sel[0].Component.(*pluginComponent)
}

// BenchmarkPluginBatch is one Record round trip to a real mca_prof_jsonl
// process, with batches of 1 and 1024 events of a Send: the events
// written as JSON lines to a file, or filtered out by the tool (the
// transport and decoding alone). ns/event is the cost spread over a
// batch's events.
func BenchmarkPluginBatch(b *testing.B) {
	dir := jsonlPlugin(b)
	for _, write := range []bool{false, true} {
		for _, n := range []int{1, 1024} {
			name := fmt.Sprintf("filtered/events=%d", n)
			filter := "None"
			if write {
				name, filter = fmt.Sprintf("written/events=%d", n), ""
			}
			b.Run(name, func(b *testing.B) {
				sys, c := openJSONL(b, dir, params.Setting{Name: "prof_jsonl_dir", Value: b.TempDir()},
					params.Setting{Name: "prof_jsonl_functions", Value: filter})
				defer sys.Close()
				tool := profpb.NewToolClient(c.Conn())
				names := make([]string, len(Functions))
				for i, f := range Functions {
					names[i] = f.Name
				}
				ctx := context.Background()
				if _, err := tool.Start(ctx, &profpb.StartRequest{JobId: "bench", Size: 1, Functions: names, ApiMajor: profpb.APIMajor}); err != nil {
					b.Fatal(err)
				}
				batch := &profpb.EventBatch{}
				for i := range n {
					batch.Events = append(batch.Events, &profpb.Event{Fn: uint32(fnSend), Peer: 1, Tag: 7, Bytes: 80,
						Comm: "MPI_COMM_WORLD", StartNs: int64(i) * 1000, EndNs: int64(i)*1000 + 500})
				}
				for b.Loop() {
					if _, err := tool.Record(ctx, batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
				if _, err := tool.Finish(ctx, &profpb.FinishRequest{}); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkPluginStart is a plugin's start-up: describe (the component
// system's load starts the executable, asks for its description and stops
// it), then open (start it again, hand it its parameters) and close.
func BenchmarkPluginStart(b *testing.B) {
	dir := jsonlPlugin(b)
	b.Run("describe", func(b *testing.B) {
		for b.Loop() {
			sys, err := mca.Load(mca.Options{Logger: hclog.NewNullLogger()}, params.Inputs{CommandLine: []params.Setting{
				{Name: "mca_base_component_path", Value: dir}}})
			if err != nil {
				b.Fatal(err)
			}
			fw, err := sys.Framework(Name)
			if err != nil {
				b.Fatal(err)
			}
			if c := fw.Components(); !slices.ContainsFunc(c, func(i mca.ComponentInfo) bool { return i.Name == "jsonl" && i.Refused == nil }) {
				b.Fatalf("jsonl not described: %+v", c)
			}
			_ = sys.Close()
		}
	})
	b.Run("describe+open+close", func(b *testing.B) {
		for b.Loop() {
			sys, _ := openJSONL(b, dir)
			if err := sys.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
