package trace

import (
	"errors"
	"fmt"
	"os"

	"github.com/gompi/gompi/frameworks/prof"
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
	world := pmpi.Real().CommWorld()
	if world == nil {
		return errors.New("prof trace: no world communicator at Finalize")
	}
	parts, err := prof.GatherParts(world, encodeRank(t.snapshot()))
	if err != nil {
		return fmt.Errorf("prof trace: gather events: %w", err)
	}
	if parts == nil { // not rank 0
		return nil
	}
	ranks := make([]rankTrace, 0, len(parts))
	var errs []error
	for i, part := range parts {
		rt, err := decodeRank(part)
		if err != nil {
			errs = append(errs, fmt.Errorf("prof trace: decode rank %d's events: %w", i, err))
			continue
		}
		ranks = append(ranks, rt)
	}
	path := t.outputPath()
	st, err := writeFile(path, pmpi.JobID(), ranks)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("prof trace: write %s: %w", path, err))...)
	}
	// gompirun lists the reports when the job ends; alone, name the file here.
	if told, aerr := pmpi.Announce(path); told && aerr == nil {
		fmt.Fprintf(os.Stderr, "gompi: prof trace: %d events from %d ranks, %d message arrows\n",
			st.events, len(ranks), st.flows)
	} else {
		fmt.Fprintf(os.Stderr, "gompi: prof trace: wrote %s (%d events from %d ranks, %d message arrows)\n",
			path, st.events, len(ranks), st.flows)
	}
	return errors.Join(errs...)
}

func (t *Tracer) outputPath() string {
	if t.cfg.output != "" {
		return t.cfg.output
	}
	if id := pmpi.JobID(); id != "" {
		return "gompi-trace." + id + ".json"
	}
	return fmt.Sprintf("gompi-trace.singleton-%d.json", os.Getpid())
}
