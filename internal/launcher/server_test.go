package launcher

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/internal/jobauth"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/internal/rte/rtepb"
)

var testSecret = []byte(strings.Repeat("k", jobenv.MinSecretLen))

type abortCall struct {
	rank, code int
	msg        string
}

// startServer serves a job of size ranks on a unix socket and returns a
// client factory; secret "" skips the handshake altogether.
func startServer(t *testing.T, size int) (*Server, func(secret string) rtepb.RuntimeClient, <-chan abortCall) {
	t.Helper()
	aborts := make(chan abortCall, 8)
	srv, err := NewServer(ServerConfig{
		JobID: "test", Size: size, Secret: testSecret,
		OnAbort: func(a AbortCall) { aborts <- abortCall{a.Rank, a.Code, a.Message} },
	})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "rt.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	dial := func(secret string) rtepb.RuntimeClient {
		creds := insecure.NewCredentials()
		if secret != "" {
			b, err := hex.DecodeString(secret)
			if err != nil {
				t.Fatal(err)
			}
			creds = jobauth.Credentials("test", b, nil)
		}
		conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return rtepb.NewRuntimeClient(conn)
	}
	return srv, dial, aborts
}

var goodSecret = hex.EncodeToString(testSecret)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantCode(t *testing.T, err error, code codes.Code, substr string) {
	t.Helper()
	if status.Code(err) != code || !strings.Contains(status.Convert(err).Message(), substr) {
		t.Fatalf("error %v: want code %v with %q in the message", err, code, substr)
	}
}

func TestFenceWithManyClients(t *testing.T) {
	const n = 6
	_, dial, _ := startServer(t, n)
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for rank := range n {
		c := dial(goodSecret) // one connection per rank, as in a job
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				for seq := range uint64(3) {
					key := fmt.Sprint("k", seq)
					if _, err := c.Put(ctx, &rtepb.PutRequest{Rank: int32(rank), Key: key, Value: []byte(fmt.Sprint(rank, "/", seq))}); err != nil {
						return err
					}
					if _, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: int32(rank), Seq: seq}); err != nil {
						return err
					}
					for q := range n {
						resp, err := c.Get(ctx, &rtepb.GetRequest{Rank: int32(rank), Target: int32(q), Key: key})
						if err != nil {
							return err
						}
						if want := fmt.Sprint(q, "/", seq); string(resp.Value) != want {
							return fmt.Errorf("rank %d got %q from rank %d, want %q", rank, resp.Value, q, want)
						}
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestFenceWaitsForEveryRank(t *testing.T) {
	_, dial, _ := startServer(t, 3)
	c := dial(goodSecret)
	ctx := testCtx(t)
	done := make(chan error, 2)
	for rank := range 2 {
		go func() {
			_, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: int32(rank)})
			done <- err
		}()
	}
	select {
	case err := <-done:
		t.Fatalf("fence returned before rank 2 arrived: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 2}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	// A retry of a completed fence returns at once; skipping ahead is refused.
	if _, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 0, Seq: 0}); err != nil {
		t.Fatalf("retried fence: %v", err)
	}
	_, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 0, Seq: 5})
	wantCode(t, err, codes.InvalidArgument, "fence 5")
}

func TestFenceWithdrawsCanceledRank(t *testing.T) {
	srv, dial, _ := startServer(t, 2)
	c := dial(goodSecret)
	ctx := testCtx(t)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	// Called directly: over gRPC the client may see its deadline before the
	// server has withdrawn the rank (a retry then completes the same fence).
	if _, err := srv.Fence(short, &rtepb.FenceRequest{Rank: 0}); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("fence with expired context: %v, want DeadlineExceeded", err)
	}
	// Rank 0 gave up, so rank 1 alone must not complete the fence.
	done := make(chan error, 1)
	go func() {
		_, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 1})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("fence completed without rank 0: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 0}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestGetWaitsForLaterPut(t *testing.T) {
	_, dial, _ := startServer(t, 2)
	c := dial(goodSecret)
	ctx := testCtx(t)
	got := make(chan string, 1)
	go func() {
		resp, err := c.Get(ctx, &rtepb.GetRequest{Rank: 0, Target: 1, Key: "addr"})
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(resp.Value)
	}()
	time.Sleep(50 * time.Millisecond) // let the Get start waiting (not needed for correctness)
	if _, err := c.Put(ctx, &rtepb.PutRequest{Rank: 1, Key: "addr", Value: []byte("tcp://x")}); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != "tcp://x" {
		t.Fatalf("Get returned %q, want tcp://x", v)
	}
}

func TestGetErrors(t *testing.T) {
	srv, dial, _ := startServer(t, 3)
	c := dial(goodSecret)
	ctx := testCtx(t)

	_, err := c.Get(ctx, &rtepb.GetRequest{Rank: 0, Target: 7, Key: "k"})
	wantCode(t, err, codes.OutOfRange, "target rank 7 is out of range 0..2")
	_, err = c.Get(ctx, &rtepb.GetRequest{Rank: -1, Target: 0, Key: "k"})
	wantCode(t, err, codes.OutOfRange, "calling rank -1")

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = c.Get(short, &rtepb.GetRequest{Rank: 0, Target: 1, Key: "never"})
	wantCode(t, err, codes.DeadlineExceeded, "")

	// A rank that exited cannot put the key any more.
	srv.RankExited(1)
	_, err = c.Get(ctx, &rtepb.GetRequest{Rank: 0, Target: 1, Key: "never"})
	wantCode(t, err, codes.FailedPrecondition, "rank 1 exited")

	// A waiting Get fails when the job ends.
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, &rtepb.GetRequest{Rank: 0, Target: 2, Key: "never"})
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	srv.End("rank 2 failed")
	wantCode(t, <-errc, codes.Aborted, "rank 2 failed")
}

func TestFenceFailsWhenRankExited(t *testing.T) {
	srv, dial, _ := startServer(t, 3)
	c := dial(goodSecret)
	ctx := testCtx(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Fence(ctx, &rtepb.FenceRequest{Rank: 0})
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	srv.RankExited(2)
	wantCode(t, <-errc, codes.FailedPrecondition, "rank 2 exited without reaching fence 0")
}

func TestUnauthenticatedCallsRefused(t *testing.T) {
	_, dial, _ := startServer(t, 2)
	ctx := testCtx(t)
	for name, secret := range map[string]string{"none": "", "wrong": hex.EncodeToString([]byte(strings.Repeat("x", jobenv.MinSecretLen)))} {
		_, err := dial(secret).Put(ctx, &rtepb.PutRequest{Rank: 0, Key: "k"})
		if status.Code(err) != codes.Unavailable {
			t.Errorf("%s secret: %v, want Unavailable: the connection is refused before any call", name, err)
		}
	}
}

func TestHelloAbortFinalize(t *testing.T) {
	srv, dial, aborts := startServer(t, 2)
	c := dial(goodSecret)
	ctx := testCtx(t)
	resp, err := c.Hello(ctx, &rtepb.HelloRequest{Rank: 1, Pid: 42})
	if err != nil {
		t.Fatal(err)
	}
	if resp.JobId != "test" || resp.Size != 2 {
		t.Fatalf("Hello: job %q size %d, want test and 2", resp.JobId, resp.Size)
	}
	if conn, fin := srv.RankState(1); !conn || fin {
		t.Fatalf("after Hello: connected %v finalized %v, want true false", conn, fin)
	}
	if _, err := c.Finalize(ctx, &rtepb.FinalizeRequest{Rank: 1}); err != nil {
		t.Fatal(err)
	}
	if _, fin := srv.RankState(1); !fin {
		t.Fatal("Finalize not recorded")
	}
	if conn, _ := srv.RankState(0); conn {
		t.Fatal("rank 0 recorded as connected without Hello")
	}
	if _, err := c.Abort(ctx, &rtepb.AbortRequest{Rank: 0, Code: 7, Message: "boom"}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-aborts:
		if a != (abortCall{0, 7, "boom"}) {
			t.Fatalf("OnAbort got %+v", a)
		}
	default:
		t.Fatal("OnAbort not called before Abort returned")
	}
	_, err = c.Put(ctx, &rtepb.PutRequest{Rank: 0, Key: ""})
	wantCode(t, err, codes.InvalidArgument, "key is empty")
}

func TestNewServerRejectsBadConfig(t *testing.T) {
	if _, err := NewServer(ServerConfig{Size: 0, Secret: testSecret}); err == nil || !strings.Contains(err.Error(), "size 0") {
		t.Errorf("size 0: %v", err)
	}
	if _, err := NewServer(ServerConfig{Size: 1, Secret: []byte("short")}); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("short secret: %v", err)
	}
}

// TestReports: the files ranks announce are listed by rank, then path;
// other keys are not.
func TestReports(t *testing.T) {
	srv, dial, _ := startServer(t, 2)
	c := dial(goodSecret)
	ctx := testCtx(t)
	for _, p := range []struct {
		rank int32
		key  string
		val  string
	}{
		{1, rte.ReportKeyPrefix + "b.json", "b.json"},
		{0, "addr", "tcp://x"},
		{0, rte.ReportKeyPrefix + "z.txt", "z.txt"},
		{0, rte.ReportKeyPrefix + "a.txt", "a.txt"},
	} {
		if _, err := c.Put(ctx, &rtepb.PutRequest{Rank: p.rank, Key: p.key, Value: []byte(p.val)}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := srv.Reports(), []string{"a.txt", "z.txt", "b.json"}; !slices.Equal(got, want) {
		t.Fatalf("reports %q, want %q", got, want)
	}
}

// TestOnLost: a rank whose connection ends before it finalized is
// reported lost; one that finalized first is not.
func TestOnLost(t *testing.T) {
	lost := make(chan int, 2)
	srv, err := NewServer(ServerConfig{JobID: "test", Size: 2, Secret: testSecret, OnLost: func(r int) { lost <- r }})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "rt.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Stop()
	for _, finalize := range []bool{true, false} {
		conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(jobauth.Credentials("test", testSecret, nil)))
		if err != nil {
			t.Fatal(err)
		}
		c := rtepb.NewRuntimeClient(conn)
		rank := int32(0)
		if !finalize {
			rank = 1
		}
		stream, err := c.Watch(testCtx(t), &rtepb.WatchRequest{Rank: rank})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Header(); err != nil { // the server has the stream
			t.Fatal(err)
		}
		if finalize {
			if _, err := c.Finalize(testCtx(t), &rtepb.FinalizeRequest{Rank: rank}); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
	}
	select {
	case r := <-lost:
		if r != 1 {
			t.Errorf("rank %d reported lost, want rank 1 (rank 0 finalized)", r)
		}
	case <-time.After(time.Minute): // a hang guard: the report follows the close at once
		t.Fatal("rank 1's closed connection was not reported")
	}
	select {
	case r := <-lost:
		t.Errorf("rank %d reported lost too", r)
	default:
	}
}
