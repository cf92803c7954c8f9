package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gompi/gompi/mca"
)

func TestQuery(t *testing.T) {
	t.Setenv("SLURM_JOB_ID", "")
	c := &Component{}
	if _, err := c.Query(context.Background(), &mca.Env{Priority: 75}); !errors.Is(err, mca.ErrDeclined) {
		t.Errorf("outside an allocation: %v, want a decline", err)
	}
	// An allocation, with an srun of our own on PATH.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "srun"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("SLURM_JOB_ID", "42")
	if prio, err := c.Query(context.Background(), &mca.Env{Priority: 75}); err != nil || prio != 75 {
		t.Fatalf("inside an allocation: %d, %v", prio, err)
	}
	cmd, err := c.Command("n2", []string{"/opt/gompi/bin/gompirun", "--daemon"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Path != filepath.Join(dir, "srun") || !slices.Contains(cmd.Args, "--nodelist=n2") ||
		!slices.Equal(cmd.Args[len(cmd.Args)-2:], []string{"/opt/gompi/bin/gompirun", "--daemon"}) {
		t.Errorf("command %q", cmd.Args)
	}
	if _, err := c.Command("-x", nil); err == nil {
		t.Error("a node name that is an option was accepted")
	}
}
