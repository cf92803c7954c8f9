package node

import (
	"slices"
	"testing"

	"github.com/gompi/gompi/internal/reaper"
)

func TestRankEnvBase(t *testing.T) {
	in := []string{"A=1", "GOMPI_COMM_WORLD_RANK=5", "B=2", "A=3", reaper.EnvVar + "=0", "GOMPI_JOB_SECRET=00"}
	got := RankEnvBase(in)
	if want := []string{"B=2", "A=3"}; !slices.Equal(got, want) {
		t.Fatalf("RankEnvBase = %q, want %q", got, want)
	}
}
