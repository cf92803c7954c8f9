package gompirun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/mca"
)

// TestQuery: the component accepts where gompirun's variables are set,
// declines where none is, and stops Init where they disagree.
func TestQuery(t *testing.T) {
	c := &Component{}
	env := &mca.Env{Priority: 100}
	for _, name := range []string{rte.EnvRank, rte.EnvSize, rte.EnvLocalRank, rte.EnvLocalSize, rte.EnvAppNum,
		rte.EnvJobID, rte.EnvServer, rte.EnvSecret, rte.EnvSessionDir, rte.EnvLifeline} {
		t.Setenv(name, "")
	}
	if _, err := c.Query(context.Background(), env); !errors.Is(err, mca.ErrDeclined) {
		t.Errorf("no variable: %v, want a decline", err)
	}

	t.Setenv(rte.EnvRank, "1")
	_, err := c.Query(context.Background(), env)
	if !errors.Is(err, mca.ErrFatal) || !strings.Contains(err.Error(), rte.EnvSize) {
		t.Errorf("a rank without a size: %v, want a fatal error naming %s", err, rte.EnvSize)
	}

	t.Setenv(rte.EnvSize, "2")
	t.Setenv(rte.EnvJobID, "feed01")
	t.Setenv(rte.EnvServer, "unix:///nonexistent/rt.sock")
	t.Setenv(rte.EnvSecret, strings.Repeat("ab", rte.MinSecretLen))
	if prio, err := c.Query(context.Background(), env); err != nil || prio != 100 {
		t.Errorf("launched by gompirun: %d, %v; want priority 100", prio, err)
	}
}
