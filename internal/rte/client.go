package rte

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/jobauth"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/jobfiles"
	"github.com/gompi/gompi/internal/rte/rtepb"
)

// Client is a rank's connection to the job runtime. It is safe for
// concurrent use, except that one rank must not run two Fences at once.
type Client struct {
	job ess.Job

	conn *grpc.ClientConn    // nil without a job server
	rpc  rtepb.RuntimeClient // nil without a job server
	kv   *localStore         // used without a job server

	// Singleton Abort: where the message goes and how the process ends.
	stderr io.Writer
	exit   func(code int)

	mu       sync.Mutex
	fenceSeq uint64 // fences completed by this rank
	closed   bool
}

// Connect reads this process's identity from the environment that gompirun
// set and connects to the job server. Without GOMPI_COMM_WORLD_SIZE the
// process is a singleton (rank 0 of 1) and nothing is contacted. Malformed
// or inconsistent variables are errors naming the variable and its value.
func Connect(ctx context.Context) (*Client, error) {
	cfg, err := parseEnv(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("rte: %w", err)
	}
	return connect(ctx, cfg, os.Stderr, os.Exit)
}

// Launched reports whether gompirun's variables say that it started this
// process; variables that are set but inconsistent are an error naming
// them.
func Launched(getenv func(string) string) (bool, error) {
	cfg, err := parseEnv(getenv)
	if err != nil {
		return false, err
	}
	return !cfg.job.Singleton, nil
}

// Singleton makes the runtime of a process started without a launcher:
// rank 0 of 1, with the store kept in memory.
func Singleton(ctx context.Context) (*Client, error) {
	return connect(ctx, config{job: ess.Job{Size: 1, LocalSize: 1, Singleton: true}}, os.Stderr, os.Exit)
}

func connect(ctx context.Context, cfg config, stderr io.Writer, exit func(int)) (*Client, error) {
	c := &Client{job: cfg.job, stderr: stderr, exit: exit}
	c.job.Hostname, _ = os.Hostname() // informational; empty if unknown
	if cfg.lifeline > 0 {
		go c.watchLifeline(cfg.lifeline)
	}
	if c.job.Singleton {
		var err error
		if c.job.JobID, c.job.Secret, err = singletonIdentity(); err != nil {
			return nil, fmt.Errorf("rte: %w", err)
		}
	} else if c.job.Secret == nil {
		// Launched with one rank and no server: nothing checks the secret,
		// but transports still need one.
		secret, err := randomBytes(jobenv.MinSecretLen)
		if err != nil {
			return nil, fmt.Errorf("rte: %w", err)
		}
		c.job.Secret = secret
	}
	if cfg.server == "" {
		c.kv = newLocalStore()
		return c, nil
	}

	conn, err := grpc.NewClient(cfg.server, grpc.WithTransportCredentials(jobauth.Credentials(c.job.JobID, c.job.Secret, nil)))
	if err != nil {
		return nil, fmt.Errorf("rte: job server %s=%q: %w", jobenv.Server, cfg.server, err)
	}
	c.conn, c.rpc = conn, rtepb.NewRuntimeClient(conn)
	resp, err := c.rpc.Hello(ctx, &rtepb.HelloRequest{Rank: int32(c.job.Rank), Pid: int64(os.Getpid())})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("rte: connecting to the job server at %s: %w", cfg.server, rpcError(ctx, err))
	}
	if int(resp.Size) != c.job.Size || resp.JobId != c.job.JobID {
		conn.Close()
		return nil, fmt.Errorf("rte: the job server at %s runs job %s of %d ranks, but %s=%s and %s=%d",
			cfg.server, resp.JobId, resp.Size, jobenv.JobID, c.job.JobID, jobenv.Size, c.job.Size)
	}
	return c, nil
}

func singletonIdentity() (jobID string, secret []byte, err error) {
	id, err := randomBytes(4)
	if err != nil {
		return "", nil, err
	}
	secret, err = randomBytes(jobenv.MinSecretLen)
	if err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(id), secret, nil
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("reading random bytes: %w", err)
	}
	return b, nil
}

// Job returns this rank's identity.
func (c *Client) Job() ess.Job {
	j := c.job
	j.Secret = append([]byte(nil), c.job.Secret...) // callers must not change ours
	return j
}

// Announce tells gompirun of a file this rank wrote for the user, to list
// when the job ends. It reports false when no gompirun will (a singleton):
// the caller then says so itself.
func (c *Client) Announce(ctx context.Context, path string) (bool, error) {
	if c.kv != nil {
		return false, nil
	}
	if err := c.Put(ctx, ReportKeyPrefix+path, []byte(path)); err != nil {
		return false, err
	}
	return true, nil
}

// Put publishes key with value for this rank. Every rank's Get sees it once
// it returns (and so after any later Fence). Putting a key again replaces
// its value. Values are limited to 1 MiB.
func (c *Client) Put(ctx context.Context, key string, value []byte) error {
	if key == "" {
		return errors.New("rte: Put: the key is empty")
	}
	if len(value) > maxValueSize {
		return fmt.Errorf("rte: Put %q: the value is %d bytes; at most %d are allowed", key, len(value), maxValueSize)
	}
	if c.kv != nil {
		c.kv.put(key, value)
		return nil
	}
	_, err := c.rpc.Put(ctx, &rtepb.PutRequest{Rank: int32(c.job.Rank), Key: key, Value: value})
	if err != nil {
		return fmt.Errorf("rte: Put %q: %w", key, rpcError(ctx, err))
	}
	return nil
}

// Fence returns when every rank of the job has called it; Puts made before
// it are visible to every rank's Get after it. It fails if ctx ends first
// or if the job is ending or a rank exited without reaching the fence.
// After a failure caused by ctx the rank may or may not have been counted;
// calling Fence again waits for (or returns from) that same fence.
func (c *Client) Fence(ctx context.Context) error {
	if c.kv != nil {
		return ctx.Err()
	}
	c.mu.Lock()
	seq := c.fenceSeq
	c.mu.Unlock()
	if _, err := c.rpc.Fence(ctx, &rtepb.FenceRequest{Rank: int32(c.job.Rank), Seq: seq}); err != nil {
		return fmt.Errorf("rte: Fence: %w", rpcError(ctx, err))
	}
	c.mu.Lock()
	c.fenceSeq = seq + 1
	c.mu.Unlock()
	return nil
}

// Get returns the value rank put under key, waiting until it has been put;
// ctx bounds the wait. It fails, naming rank and key, if rank is out of
// range, if the job is ending, or if that rank exited without putting key.
func (c *Client) Get(ctx context.Context, rank int, key string) ([]byte, error) {
	if rank < 0 || rank >= c.job.Size {
		return nil, fmt.Errorf("rte: Get key %q of rank %d: the rank is out of range 0..%d", key, rank, c.job.Size-1)
	}
	if key == "" {
		return nil, fmt.Errorf("rte: Get from rank %d: the key is empty", rank)
	}
	if c.kv != nil {
		v, err := c.kv.get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("rte: Get key %q of rank %d: %w", key, rank, err)
		}
		return v, nil
	}
	resp, err := c.rpc.Get(ctx, &rtepb.GetRequest{Rank: int32(c.job.Rank), Target: int32(rank), Key: key})
	if err != nil {
		return nil, fmt.Errorf("rte: Get key %q of rank %d: %w", key, rank, rpcError(ctx, err))
	}
	return resp.Value, nil
}

// Abort asks the launcher to stop the whole job, this rank included, and
// to exit with code (see AbortStatus), reporting msg. failedPeers are the
// ranks this rank saw fail before it, so that the launcher can name the
// cause of a failure rather than its consequence. It returns once the
// launcher has recorded the request; callers should then exit or wait to
// be killed.
//
// A singleton, or a rank launched without a job server, has nobody to ask:
// Abort prints "gompi: rank 0 called Abort with code N: msg" to stderr and
// exits the process with AbortStatus(code) without returning.
func (c *Client) Abort(ctx context.Context, code int, msg string, failedPeers []int) error {
	if c.kv != nil {
		fmt.Fprintf(c.stderr, "gompi: rank %d called Abort with code %d: %s\n", c.job.Rank, code, msg)
		c.exit(AbortStatus(code))
		return nil // reached only when exit is replaced in tests
	}
	req := &rtepb.AbortRequest{Rank: int32(c.job.Rank), Code: clampInt32(code), Message: msg}
	for _, p := range failedPeers {
		req.FailedPeers = append(req.FailedPeers, int32(p))
	}
	if _, err := c.rpc.Abort(ctx, req); err != nil {
		return fmt.Errorf("rte: Abort: %w", rpcError(ctx, err))
	}
	return nil
}

// Finalize tells the launcher that this rank finished cleanly; a rank that
// connected and then exits 0 without it fails the job. It is a no-op
// without a job server.
func (c *Client) Finalize(ctx context.Context) error {
	if c.kv != nil {
		return nil
	}
	if _, err := c.rpc.Finalize(ctx, &rtepb.FinalizeRequest{Rank: int32(c.job.Rank)}); err != nil {
		return fmt.Errorf("rte: Finalize: %w", rpcError(ctx, err))
	}
	return nil
}

// Close releases the connection to the job server. Calling it again does
// nothing.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.conn == nil {
		c.closed = true
		return nil
	}
	c.closed = true
	if err := c.conn.Close(); err != nil {
		return fmt.Errorf("rte: closing the job server connection: %w", err)
	}
	return nil
}

func clampInt32(n int) int32 {
	switch {
	case n > 1<<31-1:
		return 1<<31 - 1
	case n < -1<<31:
		return -1 << 31
	}
	return int32(n)
}

// rpcError turns a gRPC error into a plain one: the caller's own context
// error when that ended the call (so errors.Is works), otherwise the
// server's message.
func rpcError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	st := status.Convert(err)
	switch st.Code() {
	case codes.Unavailable:
		return fmt.Errorf("job server unavailable: %s", st.Message())
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	}
	return errors.New(st.Message())
}

// localStore is the key-value store of a rank without a job server.
type localStore struct {
	mu      sync.Mutex
	kv      map[string][]byte
	changed chan struct{} // closed and replaced by every put
}

func newLocalStore() *localStore {
	return &localStore{kv: map[string][]byte{}, changed: make(chan struct{})}
}

func (s *localStore) put(key string, value []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[key] = append([]byte{}, value...)
	close(s.changed)
	s.changed = make(chan struct{})
}

// get waits for key like the job server does: another goroutine of this
// process may still put it.
func (s *localStore) get(ctx context.Context, key string) ([]byte, error) {
	for {
		s.mu.Lock()
		v, ok := s.kv[key]
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return append([]byte{}, v...), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("not put yet: %w", ctx.Err())
		}
	}
}

// lifelineStatus is the exit status of a rank whose gompirun is gone.
const lifelineStatus = 1

// watchLifeline waits for end of file on the pipe that only gompirun
// writes to, which comes when gompirun dies however it dies (SIGKILL
// included), and even when this rank is not its child (a wrapper script
// between them). The rank then removes what gompirun could not and exits:
// nobody is left to supervise it, or to read its output.
func (c *Client) watchLifeline(fd int) {
	if err := WaitLifeline(fd); err != nil {
		fmt.Fprintf(c.stderr, "gompi: rank %d: %v; this rank will not notice if gompirun dies\n", c.job.Rank, err)
		return
	}
	// Files first: stderr was a pipe to gompirun, and writing to it may
	// kill the rank with SIGPIPE.
	err := jobfiles.Remove(c.job.JobID, c.job.SessionDir)
	fmt.Fprintf(c.stderr, "gompi: rank %d of job %s: gompirun is gone; removed the job's files and exiting\n",
		c.job.Rank, c.job.JobID)
	if err != nil {
		fmt.Fprintf(c.stderr, "gompi: rank %d: %v\n", c.job.Rank, err)
	}
	c.exit(lifelineStatus)
}
