package gompirun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/mca"
)

// TestQuery: the component accepts where gompirun's variables are set,
// declines where none is, and stops Init where they disagree.
func TestQuery(t *testing.T) {
	c := &Component{}
	env := &mca.Env{Priority: 100}
	for _, name := range []string{jobenv.Rank, jobenv.Size, jobenv.LocalRank, jobenv.LocalSize, jobenv.AppNum,
		jobenv.JobID, jobenv.Server, jobenv.Secret, jobenv.SessionDir, jobenv.Lifeline} {
		t.Setenv(name, "")
	}
	if _, err := c.Query(context.Background(), env); !errors.Is(err, mca.ErrDeclined) {
		t.Errorf("no variable: %v, want a decline", err)
	}

	t.Setenv(jobenv.Rank, "1")
	_, err := c.Query(context.Background(), env)
	if !errors.Is(err, mca.ErrFatal) || !strings.Contains(err.Error(), jobenv.Size) {
		t.Errorf("a rank without a size: %v, want a fatal error naming %s", err, jobenv.Size)
	}

	t.Setenv(jobenv.Size, "2")
	t.Setenv(jobenv.JobID, "feed01")
	t.Setenv(jobenv.Server, "unix:///nonexistent/rt.sock")
	t.Setenv(jobenv.Secret, strings.Repeat("ab", jobenv.MinSecretLen))
	if prio, err := c.Query(context.Background(), env); err != nil || prio != 100 {
		t.Errorf("launched by gompirun: %d, %v; want priority 100", prio, err)
	}
}
