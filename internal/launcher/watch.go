package launcher

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/internal/rte/rtepb"
)

// Watch implements rtepb.RuntimeServer: it carries state requests to the
// rank until the rank or the job ends.
func (s *Server) Watch(req *rtepb.WatchRequest, stream rtepb.Runtime_WatchServer) error {
	r, err := s.rank(req.Rank, "watching")
	if err != nil {
		return err
	}
	ch := make(chan *rtepb.Directive, 1)
	s.mu.Lock()
	if s.watchers == nil {
		s.watchers = map[int]chan *rtepb.Directive{}
	}
	s.watchers[r] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.watchers[r] == ch {
			delete(s.watchers, r)
		}
		s.mu.Unlock()
	}()
	// The headers tell the rank that its watch is registered.
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	for {
		select {
		case d := <-ch:
			if err := stream.Send(d); err != nil {
				return err
			}
		case <-stream.Context().Done():
			s.mu.Lock()
			lost := !s.finalized[r] && !s.exited[r] && s.ending == ""
			s.mu.Unlock()
			if lost {
				s.cfg.OnLost(r)
			}
			return nil
		}
	}
}

// ReportState implements rtepb.RuntimeServer.
func (s *Server) ReportState(_ context.Context, rep *rtepb.StateReport) (*rtepb.ReportStateResponse, error) {
	if _, err := s.rank(rep.Rank, "reporting"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	ch, id := s.reports, s.nextID
	s.mu.Unlock()
	if ch == nil || rep.Id != id {
		return nil, status.Errorf(codes.FailedPrecondition, "no state request %d is pending", rep.Id)
	}
	select {
	case ch <- rep:
	default: // a duplicate: the collector has room for one report per rank
	}
	return &rtepb.ReportStateResponse{}, nil
}

// CollectState asks every rank that watches for its state and returns the
// reports by rank, nil for a rank that did not answer within wait (or does
// not watch: not started, finished, or stuck before Init).
func (s *Server) CollectState(ctx context.Context, stacks bool, wait time.Duration) []*rtepb.StateReport {
	s.mu.Lock()
	s.nextID++
	d := &rtepb.Directive{Id: s.nextID, Stacks: stacks}
	s.reports = make(chan *rtepb.StateReport, s.cfg.Size)
	ch := s.reports
	asked := 0
	for _, w := range s.watchers {
		select {
		case w <- d:
			asked++
		default: // still busy with an earlier request
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.reports = nil
		s.mu.Unlock()
	}()
	out := make([]*rtepb.StateReport, s.cfg.Size)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for got := 0; got < asked; {
		select {
		case rep := <-ch:
			if out[rep.Rank] == nil {
				out[rep.Rank] = rep
				got++
			}
		case <-timer.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
	return out
}
