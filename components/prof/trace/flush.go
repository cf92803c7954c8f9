package trace

import (
	"errors"
	"fmt"
	"os"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// toolName names the tool's parts and its merger.
const toolName = "trace"

// flush submits this rank's events for gompirun to merge. Without
// gompirun (a singleton) the rank writes the trace itself.
func (t *Tracer) flush() error {
	t.mu.Lock()
	run := t.started && !t.flushed
	t.flushed = true
	t.mu.Unlock()
	if !run {
		return nil
	}
	t.recording.Store(false)
	part := encodeRank(t.snapshot())
	submitted, err := pmpi.SubmitPart(toolName, part)
	if err != nil {
		return fmt.Errorf("prof trace: submit this rank's events: %w", err)
	}
	if submitted {
		return nil
	}
	job := pmpi.JobID()
	if job == "" {
		job = fmt.Sprintf("singleton-%d", os.Getpid())
	}
	path, st, n, err := mergeTrace(job, map[int][]byte{t.rank: part})
	if path != "" {
		fmt.Fprintf(os.Stderr, "gompi: prof trace: wrote %s (%d events from %d ranks, %d message arrows)\n",
			path, st.events, n, st.flows)
	}
	if err != nil {
		// Finalize runs down the profiling chain, where no framework code
		// names the layer: this is the one place that knows it.
		return fmt.Errorf("prof trace: %w", err)
	}
	return nil
}

// mergeParts is the tool's prof.Merger: gompirun calls it with the parts the
// ranks submitted at Finalize, and it writes the trace.
func mergeParts(job string, parts map[int][]byte) ([]string, error) {
	path, _, _, err := mergeTrace(job, parts)
	if path == "" {
		return nil, err
	}
	return []string{path}, err
}

// mergeTrace decodes the parts, by world rank, and writes the trace where
// the lowest rank's prof_trace_output says (rank 0's unless it is
// missing), else as gompi-trace.<job>.json. A part that does not decode is
// left out, as a missing rank, and named in the error. It returns the
// file's path ("" when none was written), what the merge kept and the
// ranks in it.
func mergeTrace(job string, parts map[int][]byte) (string, mergeStats, int, error) {
	ranks, _, missing, err := prof.DecodeParts(parts, "events", func(b []byte) (rankTrace, int, int, error) {
		rt, err := decodeRank(b)
		return rt, rt.Rank, rt.Size, err
	})
	if len(ranks) == 0 {
		return "", mergeStats{}, 0, err
	}
	path := ranks[0].Output
	if path == "" {
		path = "gompi-trace." + job + ".json"
	}
	st, werr := writeFile(path, job, ranks, missing)
	if werr != nil {
		return "", st, len(ranks), errors.Join(err, fmt.Errorf("write %s: %w", path, werr))
	}
	return path, st, len(ranks), err
}
