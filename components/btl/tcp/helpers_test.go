package tcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// firstFailure is the failure r recorded for peer, nil if none; a
// second report of the same peer fails the test.
func firstFailure(r *btltest.Receiver, peer int) error {
	fs := r.Failures(peer)
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	panic(fmt.Sprintf("PeerFailed(%d) reported %d times", peer, len(fs)))
}

// waitFor polls cond until it holds or the test times out.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// testLogger shows the component's logs when GOMPI_TEST_LOG is set.
func testLogger() hclog.Logger {
	if os.Getenv("GOMPI_TEST_LOG") == "" {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Name: "btl.tcp", Level: hclog.Trace})
}

// openComponent builds the component through a parameter registry, with
// the given parameters set as on the command line, and opens it.
func openComponent(t testing.TB, settings ...string) (*Component, error) {
	t.Helper()
	c := info.Instantiate().(*Component)
	return c, btltest.Open(t, c, testLogger(), settings...)
}

// job is several ranks of one job in this process.
type job struct {
	mods  []*Module
	recvs []*btltest.Receiver
}

var loopbackOnly = []string{"btl_tcp_if_include", "127.0.0.0/8"}

// newJob starts n ranks on one host, adds every rank to every module, and
// finalizes them when the test ends.
func newJob(t testing.TB, n int, settings ...string) *job {
	t.Helper()
	return newJobWith(t, n, nil, settings...)
}

// newJobWith is newJob with receivers of the caller's choice where recv
// returns one.
func newJobWith(t testing.TB, n int, recv func(rank int) btl.Receiver, settings ...string) *job {
	t.Helper()
	if settings == nil {
		settings = loopbackOnly
	}
	ctx := context.Background()
	mx := btltest.NewModex()
	j := &job{}
	procs := make([]btl.Proc, n)
	for rank := range n {
		c, err := openComponent(t, settings...)
		if err != nil {
			t.Fatal(err)
		}
		rec := btltest.NewReceiver()
		var r btl.Receiver = rec
		if recv != nil && recv(rank) != nil {
			r = recv(rank)
		}
		mods, err := c.Init(ctx, btl.InitEnv{
			Rank: rank, Size: n, Hostname: "testhost", JobID: "job-1",
			Secret: []byte("the job's secret"), Modex: mx.For(rank), Receiver: r,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(mods) != 1 {
			t.Fatalf("Init returned %d modules, want 1", len(mods))
		}
		m := mods[0].(*Module)
		t.Cleanup(func() { m.Finalize() })
		j.mods = append(j.mods, m)
		j.recvs = append(j.recvs, rec)
		procs[rank] = btl.Proc{Rank: rank, Hostname: "testhost"}
	}
	for _, m := range j.mods {
		reach, err := m.AddProcs(ctx, procs)
		if err != nil {
			t.Fatal(err)
		}
		for i, ok := range reach {
			if !ok {
				t.Fatalf("rank %d does not reach rank %d", m.rank, i)
			}
		}
	}
	return j
}

// pattern fills a payload that identifies its sender, stream and sequence.
func pattern(n, from, stream, seq int) []byte {
	b := make([]byte, n+7)
	x := uint64(from*1_000_003+stream*7919+seq*31) | 1
	for i := 0; i < n; i += 8 {
		x = x*6364136223846793005 + 1442695040888963407
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	return b[:n]
}

// hdrFor encodes a stream and sequence number into an upper-layer header.
func hdrFor(from, stream, seq, size int) []byte {
	return fmt.Appendf(nil, "%d:%d:%d:%d", from, stream, seq, size)
}

func parseHdr(t testing.TB, h []byte) (from, stream, seq, size int) {
	t.Helper()
	if _, err := fmt.Sscanf(string(h), "%d:%d:%d:%d", &from, &stream, &seq, &size); err != nil {
		t.Fatalf("bad header %q: %v", h, err)
	}
	return
}

// checkFrame verifies a frame's payload against its header.
func checkFrame(t testing.TB, f btltest.Frame) (stream, seq int) {
	t.Helper()
	from, stream, seq, size := parseHdr(t, f.Hdr)
	if from != f.From {
		t.Fatalf("frame %q delivered as from rank %d", f.Hdr, f.From)
	}
	if !bytes.Equal(f.Payload, pattern(size, from, stream, seq)) {
		t.Fatalf("frame %q: payload of %d bytes is corrupt", f.Hdr, len(f.Payload))
	}
	return stream, seq
}
