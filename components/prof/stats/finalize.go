package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/gompi/gompi/pmpi"
)

// Finalize ends the last phase, submits this rank's part of the report
// for gompirun to merge (or, without gompirun, writes the report), and
// then passes down.
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
	rate := m.clock.Rate()
	host, _ := os.Hostname()
	m.mu.Lock()
	data, err := json.Marshal(part(m.rank, m.size, host, m.cfg, m.phases, rate))
	m.mu.Unlock()
	if err != nil {
		return err
	}
	if submitted, err := pmpi.SubmitPart(toolName, data); submitted || err != nil {
		return err
	}
	// No gompirun: a singleton, whose part is the whole job's.
	paths, err := merge(pmpi.JobID(), map[int][]byte{m.rank: data})
	for _, p := range paths {
		fmt.Fprintf(os.Stderr, "gompi prof stats: wrote %s\n", p)
	}
	return err
}
