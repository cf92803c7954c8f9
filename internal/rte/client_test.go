package rte_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/launcher"
	"github.com/gompi/gompi/internal/rte"
)

// serve starts a job server for size ranks and sets the environment of
// rank 0; tests switch ranks by changing GOMPI_COMM_WORLD_RANK before
// Connect.
func serve(t *testing.T, size int) *launcher.Server {
	t.Helper()
	return serveOn(t, size, func(l net.Listener) net.Listener { return l })
}

// serveOn is serve whose server accepts through wrap's listener.
func serveOn(t *testing.T, size int, wrap func(net.Listener) net.Listener) *launcher.Server {
	t.Helper()
	secret := []byte(strings.Repeat("s", jobenv.MinSecretLen))
	srv, err := launcher.NewServer(launcher.ServerConfig{JobID: "feed01", Size: size, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "rt.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(wrap(l))
	t.Cleanup(srv.Stop)
	t.Setenv(jobenv.Size, strconv.Itoa(size))
	t.Setenv(jobenv.Rank, "0")
	t.Setenv(jobenv.LocalSize, strconv.Itoa(size))
	t.Setenv(jobenv.LocalRank, "0")
	t.Setenv(jobenv.JobID, "feed01")
	t.Setenv(jobenv.Server, "unix://"+sock)
	t.Setenv(jobenv.Secret, hex.EncodeToString(secret))
	return srv
}

func connectAs(t *testing.T, ctx context.Context, rank int) *rte.Client {
	t.Helper()
	t.Setenv(jobenv.Rank, strconv.Itoa(rank))
	t.Setenv(jobenv.LocalRank, strconv.Itoa(rank))
	c, err := rte.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect as rank %d: %v", rank, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestClientExchange(t *testing.T) {
	const n = 3
	srv := serve(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	clients := make([]*rte.Client, n)
	for r := range n {
		clients[r] = connectAs(t, ctx, r)
		if j := clients[r].Job(); j.Rank != r || j.Size != n || j.JobID != "feed01" || j.Singleton {
			t.Fatalf("rank %d: job %+v", r, j)
		}
	}
	errs := make(chan error, n)
	for r, c := range clients {
		go func() {
			errs <- func() error {
				for round := range 2 {
					if err := c.Put(ctx, "card", []byte(strconv.Itoa(r*10+round))); err != nil {
						return err
					}
					if err := c.Fence(ctx); err != nil {
						return err
					}
					for q := range n {
						v, err := c.Get(ctx, q, "card")
						if err != nil {
							return err
						}
						if want := strconv.Itoa(q*10 + round); string(v) != want {
							return errors.New("rank " + strconv.Itoa(r) + " got " + string(v) + ", want " + want)
						}
					}
					// Nobody may overwrite "card" before everyone has read it.
					if err := c.Fence(ctx); err != nil {
						return err
					}
				}
				return c.Finalize(ctx)
			}()
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for r := range n {
		if conn, fin := srv.RankState(r); !conn || !fin {
			t.Errorf("rank %d: connected %v finalized %v", r, conn, fin)
		}
	}
}

func TestClientErrors(t *testing.T) {
	srv := serve(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := connectAs(t, ctx, 0)

	if _, err := c.Get(ctx, 2, "addr"); err == nil || !strings.Contains(err.Error(), `key "addr" of rank 2`) {
		t.Errorf("Get of rank 2: %v", err)
	}
	short, cancel2 := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel2()
	if _, err := c.Get(short, 1, "addr"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get with a short deadline: %v, want context.DeadlineExceeded", err)
	}
	srv.End("rank 1 failed")
	if _, err := c.Get(ctx, 1, "addr"); err == nil || !strings.Contains(err.Error(), `key "addr" of rank 1`) || !strings.Contains(err.Error(), "job is ending") {
		t.Errorf("Get while the job ends: %v", err)
	}
	if err := c.Fence(ctx); err == nil || !strings.Contains(err.Error(), "job is ending") {
		t.Errorf("Fence while the job ends: %v", err)
	}
}

func TestConnectErrors(t *testing.T) {
	serve(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	t.Setenv(jobenv.Secret, strings.Repeat("00", jobenv.MinSecretLen))
	if _, err := rte.Connect(ctx); err == nil || !strings.Contains(err.Error(), "the server's challenge does not carry job feed01's MAC") {
		t.Errorf("wrong secret: %v", err)
	}
	t.Setenv(jobenv.Secret, hex.EncodeToString([]byte(strings.Repeat("s", jobenv.MinSecretLen))))
	t.Setenv(jobenv.Size, "3")
	t.Setenv(jobenv.LocalSize, "3")
	if _, err := rte.Connect(ctx); err == nil || !strings.Contains(err.Error(), "job feed01 of 2 ranks") {
		t.Errorf("size mismatch: %v", err)
	}
	t.Setenv(jobenv.Server, "unix://"+filepath.Join(t.TempDir(), "none.sock"))
	if _, err := rte.Connect(ctx); err == nil || !strings.Contains(err.Error(), "connecting to the job server") {
		t.Errorf("no server: %v", err)
	}
	t.Setenv(jobenv.Rank, "7")
	if _, err := rte.Connect(ctx); err == nil || !strings.Contains(err.Error(), `GOMPI_COMM_WORLD_RANK="7"`) {
		t.Errorf("bad rank: %v", err)
	}
}
