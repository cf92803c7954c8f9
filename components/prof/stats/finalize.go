package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/pmpi"
)

// Finalize ends the last phase, gathers every rank's part at rank 0,
// which writes the report, and then passes down.
func (m *module) Finalize() error {
	var err error
	if m.world != nil {
		if err = m.report(); err != nil {
			err = fmt.Errorf("prof stats: report: %w", err)
		}
	}
	return errors.Join(err, m.Next.Finalize())
}

func (m *module) report() error {
	m.on.Store(false)
	m.flush("finalize")
	rate := clockRate(m.tick0, ticks(), time.Since(m.wall0))
	host, _ := os.Hostname()
	m.mu.Lock()
	data, err := json.Marshal(part(m.rank, host, m.phases, rate))
	m.mu.Unlock()
	if err != nil {
		return err
	}
	parts, err := gather(m.world, data)
	if err != nil || parts == nil {
		return err
	}
	rep, err := build(jobID(), parts)
	if err != nil {
		return err
	}
	paths, err := write(m.cfg, rep)
	for _, p := range paths {
		fmt.Fprintf(os.Stderr, "gompi prof stats: wrote %s\n", p)
	}
	return err
}

// gather collects every rank's JSON at rank 0 of world with pmpi's real
// calls, below every tool, so that nothing of it is counted: the lengths
// with a Gather, then the parts with a Gatherv. Ranks other than 0 get
// nil.
func gather(world *pmpi.Comm, data []byte) ([][]byte, error) {
	api := pmpi.Real()
	rank, err := api.CommRank(world)
	if err != nil {
		return nil, err
	}
	size, err := api.CommSize(world)
	if err != nil {
		return nil, err
	}
	var lens []int64
	if rank == 0 {
		lens = make([]int64, size)
	}
	if err := api.Gather(pmpi.Bytes([]int64{int64(len(data))}), 1, pmpi.Int64, pmpi.Bytes(lens), 1, pmpi.Int64, 0, world); err != nil {
		return nil, fmt.Errorf("gather the parts' lengths: %w", err)
	}
	var all []byte
	var counts, displs []int
	if rank == 0 {
		counts, displs = make([]int, size), make([]int, size)
		total := 0
		for i, n := range lens {
			counts[i], displs[i] = int(n), total
			total += int(n)
		}
		all = make([]byte, total)
	}
	if err := api.Gatherv(data, len(data), pmpi.Byte, all, counts, displs, pmpi.Byte, 0, world); err != nil {
		return nil, fmt.Errorf("gather the parts: %w", err)
	}
	if rank != 0 {
		return nil, nil
	}
	parts := make([][]byte, size)
	for i := range parts {
		parts[i] = all[displs[i] : displs[i]+counts[i]]
	}
	return parts, nil
}

// jobID is the job's id as gompirun sets it in every rank's environment
// (pmpi does not expose it); a process started alone has none and uses
// its process id.
func jobID() string {
	if id := os.Getenv(rte.EnvJobID); id != "" {
		return id
	}
	return fmt.Sprintf("pid%d", os.Getpid())
}
