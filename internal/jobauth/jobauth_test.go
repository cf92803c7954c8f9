package jobauth

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

var (
	secret = []byte(strings.Repeat("s", 32))
	other  = []byte(strings.Repeat("o", 32))
)

// pair runs the client and the server handshake against each other.
func pair(clientJob string, clientSecret []byte, serverJob string, serverSecret []byte) (client, server error) {
	c, s := net.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		server = serverHandshake(s, serverJob, serverSecret)
		s.Close()
	}()
	client = clientHandshake(c, clientJob, clientSecret)
	c.Close()
	wg.Wait()
	return client, server
}

func TestHandshake(t *testing.T) {
	if c, s := pair("j1", secret, "j1", secret); c != nil || s != nil {
		t.Fatalf("same job and secret: client %v, server %v", c, s)
	}
	for name, tc := range map[string]struct {
		job    string
		secret []byte
	}{
		"another secret": {"j1", other},
		"another job":    {"j2", secret},
	} {
		c, s := pair(tc.job, tc.secret, "j1", secret)
		if !errors.Is(c, errBadPeer) || !strings.Contains(c.Error(), "challenge does not carry job "+tc.job+"'s MAC") {
			t.Errorf("%s: client %v, want it to refuse the server's challenge", name, c)
		}
		if s == nil {
			t.Errorf("%s: the server accepted a client that proved nothing", name)
		}
	}
}

// TestStrangerRefused: a peer that does not speak the handshake, or
// replays a proof made for another connection, is refused, and what it
// receives before (a nonce and a MAC) does not hold the secret.
func TestStrangerRefused(t *testing.T) {
	for name, junk := range map[string]string{
		"http":    "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"short":   "GMPJ",
		"version": "GMPJ\x02\x01\x00\x00" + strings.Repeat("n", nonceLen),
		"type":    "GMPJ\x01\x03\x00\x00" + strings.Repeat("n", macLen),
	} {
		c, s := net.Pipe()
		go func() { c.Write([]byte(junk)); c.Close() }()
		err := serverHandshake(s, "j1", secret)
		s.Close()
		if err == nil {
			t.Errorf("%s: the server accepted %q", name, junk)
		}
	}

	// A replay: the proof of one connection sent on another.
	c1, s1 := net.Pipe()
	nc := make([]byte, nonceLen)
	var proof []byte
	go func() {
		send(c1, msgHello, nc)
		ch, _ := receive(c1, msgChallenge)
		proof = mac(secret, "client", "j1", nc, ch[:nonceLen]) // what an honest client sent
		send(c1, msgProof, proof)
		receive(c1, msgVerdict)
		c1.Close()
	}()
	if err := serverHandshake(s1, "j1", secret); err != nil {
		t.Fatal(err)
	}
	c2, s2 := net.Pipe()
	go func() {
		send(c2, msgHello, nc)
		receive(c2, msgChallenge)
		send(c2, msgProof, proof)
		io.Copy(io.Discard, c2)
	}()
	err := serverHandshake(s2, "j1", secret)
	s2.Close()
	if !errors.Is(err, errBadPeer) || !strings.Contains(err.Error(), "the proof does not carry job j1's MAC") {
		t.Errorf("a replayed proof: %v, want it refused", err)
	}
}

// TestJunkFromServer: a client that reaches something other than a job
// server fails with an error that says so.
func TestJunkFromServer(t *testing.T) {
	c, s := net.Pipe()
	go func() {
		receive(s, msgHello)
		s.Write([]byte("SSH-2.0-OpenSSH_9.2p1 Debian\r\n" + strings.Repeat("x", 100)))
		s.Close()
	}()
	err := clientHandshake(c, "j1", secret)
	if !errors.Is(err, errBadPeer) || !strings.Contains(err.Error(), "magic") {
		t.Errorf("junk from the server: %v", err)
	}
}

// TestGRPC: over TCP, a client with the job's secret is served, one with
// another secret is not, and a stranger writing junk to the port is
// refused (and reported) while the server goes on serving.
func TestGRPC(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusals := make(chan error, 64)
	srv := grpc.NewServer(grpc.Creds(Credentials("j1", secret, func(_ net.Addr, err error) {
		select {
		case refusals <- err:
		default: // the test has seen enough
		}
	})))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(l)
	defer srv.Stop()

	check := func(s []byte) error {
		conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(Credentials("j1", s, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	if err := check(secret); err != nil {
		t.Fatalf("the job's secret: %v", err)
	}
	if err := check(other); err == nil || !strings.Contains(err.Error(), "challenge does not carry job j1's MAC") {
		t.Errorf("another secret: %v, want the handshake's refusal", err)
	}

	stranger, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	stranger.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	if b, _ := io.ReadAll(stranger); len(b) != 0 { // the server closes (or resets)
		t.Errorf("the stranger received %q", b)
	}
	stranger.Close()
	// The wrong secret's connections are refused too; the stranger's
	// refusal says why.
	for err := range refusals {
		if strings.Contains(err.Error(), "does not start with the handshake's magic") {
			break
		}
	}

	// Without the handshake at all: the server speaks only after it.
	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err == nil {
		t.Error("a client without the handshake was served")
	}
	if err := check(secret); err != nil {
		t.Errorf("the job's secret after the strangers: %v", err)
	}
}
