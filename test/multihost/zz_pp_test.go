package multihost

import (
	"os"
	"testing"
)

func TestZZSlurm(t *testing.T) {
	_, s := slurm(t)
	out, err := s.Command("h1", "sh", "-c", os.Getenv("ZZCMD")).CombinedOutput()
	t.Logf("%s %v", out, err)
}
