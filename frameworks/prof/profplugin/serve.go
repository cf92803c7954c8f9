package profplugin

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mca/plugin"
)

// Serve runs the tool info describes until its rank stops it, then exits
// the program. Without a gompi host it says what the program is and exits
// with status 1. Logger (mca/plugin) is the tool's logger; Open's
// env.Logger is the same.
func Serve(info mca.Info) {
	plugin.Serve(info, func(s *grpc.Server, c mca.Component) {
		profpb.RegisterToolServer(s, newServer(c))
	})
}

// server serves one rank's stream to the tool. The host sends one batch
// at a time; the lock keeps the tool's hooks in the stream's order even
// so.
type server struct {
	profpb.UnimplementedToolServer
	tool Tool // nil when the component is not a Tool

	mu     sync.Mutex
	fns    []string
	zero   time.Time
	events []Event // reused from batch to batch
}

func newServer(c mca.Component) *server {
	t, _ := c.(Tool)
	return &server{tool: t}
}

func (s *server) check() error {
	if s.tool == nil {
		return status.Error(codes.Unimplemented, "the component does not implement profplugin.Tool")
	}
	return nil
}

func (s *server) Start(ctx context.Context, req *profpb.StartRequest) (*profpb.StartReply, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if req.GetApiMajor() != profpb.APIMajor {
		return nil, status.Errorf(codes.FailedPrecondition, "the host's prof API is %d.%d, this tool's %d.%d",
			req.GetApiMajor(), req.GetApiMinor(), profpb.APIMajor, profpb.APIMinor)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = req.GetFunctions()
	s.zero = time.Unix(0, req.GetStartUnixNs())
	job := Job{ID: req.GetJobId(), Rank: int(req.GetRank()), Size: int(req.GetSize()), Zero: s.zero}
	if err := s.tool.Start(ctx, job); err != nil {
		return nil, status.Errorf(codes.Internal, "start: %v", err)
	}
	return &profpb.StartReply{}, nil
}

// Record hands the batch to the tool, split at each Pcontrol so that the
// tool sees it in its place.
func (s *server) Record(ctx context.Context, b *profpb.EventBatch) (*profpb.RecordReply, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		return nil, status.Error(codes.FailedPrecondition, "events before start")
	}
	s.events = s.events[:0]
	for _, pe := range b.GetEvents() {
		if int(pe.GetFn()) >= len(s.fns) {
			return nil, status.Errorf(codes.InvalidArgument, "event of function %d; the table has %d", pe.GetFn(), len(s.fns))
		}
		e := Event{
			Fn: s.fns[pe.GetFn()], Peer: int(pe.GetPeer()), Tag: int(pe.GetTag()), Bytes: pe.GetBytes(), Comm: pe.GetComm(),
			Start: time.Duration(pe.GetStartNs()), End: time.Duration(pe.GetEndNs()), Err: pe.GetError(), Level: int(pe.GetLevel()),
		}
		if e.Fn != "Pcontrol" {
			s.events = append(s.events, e)
			continue
		}
		if err := s.flush(ctx); err != nil {
			return nil, err
		}
		if err := s.tool.Pcontrol(ctx, e); err != nil {
			return nil, status.Errorf(codes.Internal, "pcontrol: %v", err)
		}
	}
	if err := s.flush(ctx); err != nil {
		return nil, err
	}
	return &profpb.RecordReply{}, nil
}

// flush hands the events gathered so far to the tool.
func (s *server) flush(ctx context.Context) error {
	if len(s.events) == 0 {
		return nil
	}
	err := s.tool.Events(ctx, s.events)
	s.events = s.events[:0]
	if err != nil {
		return status.Errorf(codes.Internal, "events: %v", err)
	}
	return nil
}

func (s *server) Finish(ctx context.Context, _ *profpb.FinishRequest) (*profpb.Report, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rep, err := s.tool.Finish(ctx)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "finish: %v", err)
	}
	return &profpb.Report{Paths: rep.Paths, Summary: rep.Summary}, nil
}
