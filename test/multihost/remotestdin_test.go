package multihost

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gompi/gompi/test/cluster"
)

// TestStdinToRemoteRank0: gompirun's stdin reaches rank 0 on another
// host whole (more than a pipe holds, so the credit is exercised), the
// end of it reaches rank 0 as end of file, and the other ranks read
// /dev/null. gompirun's /dev/null is rank 0's too. A rank 0 that stops
// reading early ends the forwarding without an error.
func TestStdinToRemoteRank0(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 2, cluster.Options{})
	payload := make([]byte, 4<<20+12345) // well beyond a pipe and the credit
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	hash := func(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }
	sum := []string{"sh", "-c", `echo "rank $GOMPI_COMM_WORLD_RANK read $(sha256sum | cut -d' ' -f1)"`}

	t.Run("whole", func(t *testing.T) {
		// h2 holds rank 0, and gompirun runs on h1.
		r := runPinned(t, c, "h1", bytes.NewReader(payload), append([]string{"--host", "h2,h1", "-np", "2", "--bind-to", "none"}, sum...)...)
		if r.code != 0 {
			t.Fatalf("the job failed\n%v", r)
		}
		for rank, want := range []string{hash(payload), hash(nil)} {
			if !strings.Contains(r.stdout, fmt.Sprintf("rank %d read %s\n", rank, want)) {
				t.Errorf("rank %d did not read %s\n%v", rank, want, r)
			}
		}
	})
	t.Run("map-by node", func(t *testing.T) {
		r := runPinned(t, c, "h2", bytes.NewReader(payload), append([]string{"--host", "h1:1,h2:1", "--map-by", "node", "-np", "2", "--bind-to", "none"}, sum...)...)
		if r.code != 0 {
			t.Fatalf("the job failed\n%v", r)
		}
		for rank, want := range []string{hash(payload), hash(nil)} {
			if !strings.Contains(r.stdout, fmt.Sprintf("rank %d read %s\n", rank, want)) {
				t.Errorf("rank %d did not read %s\n%v", rank, want, r)
			}
		}
	})
	t.Run("/dev/null", func(t *testing.T) {
		r := runPinned(t, c, "h1", nil, append([]string{"--host", "h2,h1", "-np", "2", "--bind-to", "none"}, sum...)...)
		if r.code != 0 {
			t.Fatalf("the job failed\n%v", r)
		}
		for rank := range 2 {
			if !strings.Contains(r.stdout, fmt.Sprintf("rank %d read %s\n", rank, hash(nil))) {
				t.Errorf("rank %d did not read an empty stdin\n%v", rank, r)
			}
		}
	})
	t.Run("rank 0 stops reading", func(t *testing.T) {
		big := bytes.Repeat(payload, 4)
		head := []string{"sh", "-c", `echo "rank $GOMPI_COMM_WORLD_RANK read $(head -c 10 | wc -c)"`}
		r := runPinned(t, c, "h1", bytes.NewReader(big), append([]string{"--host", "h2,h1", "-np", "2", "--bind-to", "none"}, head...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("the job failed, or gompirun complained\n%v", r)
		}
		if !strings.Contains(r.stdout, "rank 0 read 10\n") || !strings.Contains(r.stdout, "rank 1 read 0\n") {
			t.Errorf("want rank 0 to read 10 bytes and rank 1 none\n%v", r)
		}
	})
	checkClean(t, c)
}
