package launcher

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/internal/jobauth"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/internal/rte/rtepb"
)

// ServerConfig configures a job server.
type ServerConfig struct {
	JobID  string
	Size   int    // number of ranks, >= 1
	Secret []byte // callers prove they hold it (jobauth) before any call
	// OnAbort is called when a rank calls Abort, before the call returns, so
	// the launcher learns of the abort before it can see the rank exit.
	OnAbort func(AbortCall)
	// OnLost is called when the connection of a rank that neither
	// finalized nor exited ends: the rank died, or the link to its host
	// broke (the server's keepalive pings find that out).
	OnLost func(rank int)
	Log    hclog.Logger // nil: discard
}

// Server is the job server: the ranks' key-value store and fence, and the
// record of which ranks connected and finalized. It is safe for concurrent
// use.
type Server struct {
	rtepb.UnimplementedRuntimeServer

	cfg  ServerConfig
	grpc *grpc.Server

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change waiters care about
	kv        []map[string][]byte
	connected []bool
	finalized []bool
	exited    []bool
	fenceGen  uint64 // fences completed by the whole job
	arrived   []bool // ranks waiting in fence number fenceGen
	nArrived  int
	ending    string // why the job is ending; empty while it runs

	watchers map[int]chan *rtepb.Directive // ranks listening for state requests
	nextID   uint64
	reports  chan *rtepb.StateReport // answers to the pending state request
}

// AbortCall is a rank's call to Abort.
type AbortCall struct {
	Rank, Code int
	Message    string
	// FailedPeers are the ranks the caller saw fail before it aborted, in
	// the job's range.
	FailedPeers []int
}

// The job server's keepalive: a connection idle for keepaliveTime is
// pinged, and closed when the ping is not answered within keepaliveTimeout
// (gRPC's default): time enough for a rank starved of CPU on a loaded
// host, where 4 s was not. The kernel's keepalive probes would not depend
// on the rank's CPU, but with a link pulled in test/cluster's namespaces
// the server's sockets kept probing past their count without closing.
const (
	keepaliveTime    = 2 * time.Second
	keepaliveTimeout = 20 * time.Second
)

// NewServer returns a job server for a job of cfg.Size ranks.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Size < 1 {
		return nil, fmt.Errorf("job server: size %d: a job needs at least one rank", cfg.Size)
	}
	if len(cfg.Secret) < jobenv.MinSecretLen {
		return nil, fmt.Errorf("job server: the secret is %d bytes; at least %d are required", len(cfg.Secret), jobenv.MinSecretLen)
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	if cfg.OnAbort == nil {
		cfg.OnAbort = func(AbortCall) {}
	}
	if cfg.OnLost == nil {
		cfg.OnLost = func(int) {}
	}
	s := &Server{
		cfg:       cfg,
		changed:   make(chan struct{}),
		kv:        make([]map[string][]byte, cfg.Size),
		connected: make([]bool, cfg.Size),
		finalized: make([]bool, cfg.Size),
		exited:    make([]bool, cfg.Size),
		arrived:   make([]bool, cfg.Size),
	}
	for i := range s.kv {
		s.kv[i] = map[string][]byte{}
	}
	refused := func(remote net.Addr, err error) {
		cfg.Log.Warn("refused a connection that did not prove it belongs to the job", "from", remote, "error", err)
	}
	s.grpc = grpc.NewServer(grpc.Creds(jobauth.Credentials(cfg.JobID, cfg.Secret, refused)),
		// A host whose link breaks sends no FIN: pings that go
		// unanswered end its ranks' connections.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveTime / 2, PermitWithoutStream: true}))
	rtepb.RegisterRuntimeServer(s.grpc, s)
	return s, nil
}

// Serve answers calls on l until Stop.
func (s *Server) Serve(l net.Listener) error {
	if err := s.grpc.Serve(l); err != nil {
		return fmt.Errorf("job server: %w", err)
	}
	return nil
}

// Stop ends the job (see End), closes every connection and stops Serve.
func (s *Server) Stop() {
	s.End("the job server stopped")
	s.grpc.Stop()
}

// End makes every pending and later Get and Fence fail with reason: the job
// is being stopped and what they wait for may never come. The first reason
// is kept.
func (s *Server) End(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending == "" {
		s.ending = reason
		s.broadcastLocked()
	}
}

// RankExited records that rank's process is gone, so Gets of keys it never
// put and fences it never reached fail instead of waiting forever.
func (s *Server) RankExited(rank int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rank >= 0 && rank < s.cfg.Size {
		s.exited[rank] = true
		s.broadcastLocked()
	}
}

// exitedOrDone reports whether rank's exit is recorded, or it finalized.
func (s *Server) exitedOrDone(rank int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rank >= 0 && rank < s.cfg.Size && (s.exited[rank] || s.finalized[rank])
}

// RankState reports whether rank said Hello and whether it called Finalize.
func (s *Server) RankState(rank int) (connected, finalized bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rank < 0 || rank >= s.cfg.Size {
		return false, false
	}
	return s.connected[rank], s.finalized[rank]
}

func (s *Server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) rank(r int32, role string) (int, error) {
	if r < 0 || int(r) >= s.cfg.Size {
		return 0, status.Errorf(codes.OutOfRange, "%s rank %d is out of range 0..%d", role, r, s.cfg.Size-1)
	}
	return int(r), nil
}

// Hello implements rtepb.RuntimeServer.
func (s *Server) Hello(_ context.Context, req *rtepb.HelloRequest) (*rtepb.HelloResponse, error) {
	r, err := s.rank(req.Rank, "calling")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.connected[r] = true
	s.mu.Unlock()
	s.cfg.Log.Debug("rank connected", "rank", r, "pid", req.Pid)
	return &rtepb.HelloResponse{JobId: s.cfg.JobID, Size: int32(s.cfg.Size)}, nil
}

// Put implements rtepb.RuntimeServer.
func (s *Server) Put(_ context.Context, req *rtepb.PutRequest) (*rtepb.PutResponse, error) {
	r, err := s.rank(req.Rank, "calling")
	if err != nil {
		return nil, err
	}
	if req.Key == "" {
		return nil, status.Error(codes.InvalidArgument, "the key is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[r][req.Key] = req.Value // the request is ours; no copy needed
	s.broadcastLocked()
	return &rtepb.PutResponse{}, nil
}

// Reports returns the paths of the files the ranks announced for the user
// (rte.Client.Announce), by rank, then by path.
func (s *Server) Reports() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, kv := range s.kv {
		var mine []string
		for k, v := range kv {
			if strings.HasPrefix(k, rte.ReportKeyPrefix) {
				mine = append(mine, string(v))
			}
		}
		slices.Sort(mine)
		out = append(out, mine...)
	}
	return out
}

// Get implements rtepb.RuntimeServer: it waits until the target rank has put
// the key, the target exits without it, the job ends or ctx is done.
func (s *Server) Get(ctx context.Context, req *rtepb.GetRequest) (*rtepb.GetResponse, error) {
	if _, err := s.rank(req.Rank, "calling"); err != nil {
		return nil, err
	}
	t, err := s.rank(req.Target, "target")
	if err != nil {
		return nil, err
	}
	for {
		s.mu.Lock()
		v, ok := s.kv[t][req.Key]
		ending, exited, changed := s.ending, s.exited[t], s.changed
		s.mu.Unlock()
		switch {
		case ok:
			return &rtepb.GetResponse{Value: v}, nil // values are never modified in place
		case ending != "":
			return nil, status.Errorf(codes.Aborted, "the job is ending: %s", ending)
		case exited:
			return nil, status.Errorf(codes.FailedPrecondition, "rank %d exited without putting it", t)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
}

// Fence implements rtepb.RuntimeServer: fence number seq completes when
// every rank has called it with that seq. A call for a fence that already
// completed returns at once (a retry), and a caller that gives up is
// withdrawn so the fence cannot complete without it.
func (s *Server) Fence(ctx context.Context, req *rtepb.FenceRequest) (*rtepb.FenceResponse, error) {
	r, err := s.rank(req.Rank, "calling")
	if err != nil {
		return nil, err
	}
	for {
		s.mu.Lock()
		if req.Seq < s.fenceGen {
			s.mu.Unlock()
			return &rtepb.FenceResponse{}, nil
		}
		if req.Seq > s.fenceGen {
			gen := s.fenceGen
			s.mu.Unlock()
			return nil, status.Errorf(codes.InvalidArgument, "rank %d asked for fence %d but the job is at fence %d", r, req.Seq, gen)
		}
		if !s.arrived[r] {
			s.arrived[r] = true
			s.nArrived++
		}
		if s.nArrived == s.cfg.Size {
			s.fenceGen++
			clear(s.arrived)
			s.nArrived = 0
			s.broadcastLocked()
			s.mu.Unlock()
			return &rtepb.FenceResponse{}, nil
		}
		if s.ending != "" {
			ending := s.ending
			s.withdrawLocked(r)
			s.mu.Unlock()
			return nil, status.Errorf(codes.Aborted, "the job is ending: %s", ending)
		}
		if gone := s.missingExitedLocked(); gone >= 0 {
			s.withdrawLocked(r)
			s.mu.Unlock()
			return nil, status.Errorf(codes.FailedPrecondition, "rank %d exited without reaching fence %d", gone, req.Seq)
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			s.mu.Lock()
			if req.Seq == s.fenceGen {
				s.withdrawLocked(r)
			}
			s.mu.Unlock()
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
}

func (s *Server) withdrawLocked(r int) {
	if s.arrived[r] {
		s.arrived[r] = false
		s.nArrived--
	}
}

// missingExitedLocked returns a rank that exited without arriving at the
// current fence, or -1.
func (s *Server) missingExitedLocked() int {
	for i, gone := range s.exited {
		if gone && !s.arrived[i] {
			return i
		}
	}
	return -1
}

// Abort implements rtepb.RuntimeServer.
func (s *Server) Abort(_ context.Context, req *rtepb.AbortRequest) (*rtepb.AbortResponse, error) {
	r, err := s.rank(req.Rank, "calling")
	if err != nil {
		return nil, err
	}
	s.cfg.Log.Debug("rank called Abort", "rank", r, "code", req.Code, "message", req.Message, "failed peers", req.FailedPeers)
	call := AbortCall{Rank: r, Code: int(req.Code), Message: req.Message}
	for _, p := range req.FailedPeers {
		if p >= 0 && int(p) < s.cfg.Size && int(p) != r && !slices.Contains(call.FailedPeers, int(p)) {
			call.FailedPeers = append(call.FailedPeers, int(p))
		}
	}
	s.cfg.OnAbort(call)
	return &rtepb.AbortResponse{}, nil
}

// Finalize implements rtepb.RuntimeServer.
func (s *Server) Finalize(_ context.Context, req *rtepb.FinalizeRequest) (*rtepb.FinalizeResponse, error) {
	r, err := s.rank(req.Rank, "calling")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.finalized[r] = true
	s.mu.Unlock()
	s.cfg.Log.Debug("rank finalized", "rank", r)
	return &rtepb.FinalizeResponse{}, nil
}
