package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Programs are the C twins of gompi-bench's subcommands, by bench/c file name.
var Programs = []string{"latency", "sendrecv", "ddt", "bw", "bibw", "multi_lat", "incast", "ring", "init_finalize",
	"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
	"neighbor_allgather", "neighbor_alltoall", "iallreduce", "ibcast", "ialltoall", "allreduce_init",
	"comm_dup", "comm_idup", "comm_split"}

// Build compiles every program of srcDir against the library into
// buildDir/lib.Dir.
func Build(ctx context.Context, lib *Library, srcDir, buildDir string) error {
	dir := filepath.Join(buildDir, lib.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: build directory: %w", lib.Name, err)
	}
	var errs []error
	for _, p := range Programs {
		src := filepath.Join(srcDir, p+".c")
		args := slices.Concat([]string{"-O2"}, lib.CFlags, []string{"-o", filepath.Join(dir, p), src}, lib.Libs)
		out, err := exec.CommandContext(ctx, lib.CC, args...).CombinedOutput()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s %s: %w\n%s", lib.Name, lib.CC, strings.Join(args, " "), err, out))
		}
	}
	return errors.Join(errs...)
}

// Smoke runs init_finalize as a 2-rank job, so that a library that
// installed but cannot run is reported before any measurement.
func Smoke(ctx context.Context, lib *Library, buildDir string, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lib.Run, lib.NP, "2", filepath.Join(buildDir, lib.Dir, "init_finalize"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: a 2-rank job does not run: %s: %w\n%s", lib.Name, strings.Join(cmd.Args, " "), err, tail(string(out), 1500))
	}
	return nil
}
