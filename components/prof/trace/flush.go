package trace

import (
	"errors"
	"fmt"
	"os"

	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/pmpi"
)

// flush gathers every rank's events to rank 0 through pmpi's real calls
// (so no tool records them), and rank 0 writes the merged trace.
func (t *Tracer) flush() error {
	t.mu.Lock()
	run := t.started && !t.flushed
	t.flushed = true
	t.mu.Unlock()
	if !run {
		return nil
	}
	t.recording.Store(false)
	world, api := pmpi.Real().CommWorld(), pmpi.Real()
	if world == nil {
		return errors.New("prof trace: no world communicator at Finalize")
	}
	mine := encodeRank(t.snapshot())
	lens := []int64{int64(len(mine))}
	var all []int64
	if t.rank == 0 {
		all = make([]int64, world.Size())
	}
	if err := api.Gather(pmpi.Bytes(lens), 1, pmpi.Int64, pmpi.Bytes(all), 1, pmpi.Int64, 0, world); err != nil {
		return fmt.Errorf("prof trace: gather sizes: %w", err)
	}
	var buf []byte
	var counts, displs []int
	if t.rank == 0 {
		counts, displs = make([]int, len(all)), make([]int, len(all))
		n := 0
		for i, l := range all {
			counts[i], displs[i] = int(l), n
			n += int(l)
		}
		buf = make([]byte, n)
	}
	if err := api.Gatherv(mine, len(mine), pmpi.Byte, buf, counts, displs, pmpi.Byte, 0, world); err != nil {
		return fmt.Errorf("prof trace: gather events: %w", err)
	}
	if t.rank != 0 {
		return nil
	}
	ranks := make([]rankTrace, 0, len(all))
	var errs []error
	for i := range all {
		rt, err := decodeRank(buf[displs[i] : displs[i]+counts[i]])
		if err != nil {
			errs = append(errs, fmt.Errorf("prof trace: decode rank %d's events: %w", i, err))
			continue
		}
		ranks = append(ranks, rt)
	}
	path := t.outputPath()
	st, err := writeFile(path, jobID(), ranks)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("prof trace: write %s: %w", path, err))...)
	}
	fmt.Fprintf(os.Stderr, "gompi: prof trace: wrote %s (%d events from %d ranks, %d message arrows)\n",
		path, st.events, len(ranks), st.flows)
	return errors.Join(errs...)
}

// jobID is the job's id from the environment gompirun sets (pmpi does not
// show it); empty for a singleton.
func jobID() string { return os.Getenv(rte.EnvJobID) }

func (t *Tracer) outputPath() string {
	if t.cfg.output != "" {
		return t.cfg.output
	}
	if id := jobID(); id != "" {
		return "gompi-trace." + id + ".json"
	}
	return fmt.Sprintf("gompi-trace.singleton-%d.json", os.Getpid())
}
