package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/gompi/gompi/frameworks/prof"
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
	rate := m.clock.Rate()
	host, _ := os.Hostname()
	m.mu.Lock()
	data, err := json.Marshal(part(m.rank, host, m.phases, rate))
	m.mu.Unlock()
	if err != nil {
		return err
	}
	parts, err := prof.GatherParts(m.world, data)
	if err != nil || parts == nil {
		return err
	}
	rep, err := build(pmpi.JobID(), parts)
	if err != nil {
		return err
	}
	paths, err := write(m.cfg, rep)
	for _, p := range paths {
		// gompirun lists the reports when the job ends; alone, say it here.
		if told, aerr := pmpi.Announce(p); !told || aerr != nil {
			fmt.Fprintf(os.Stderr, "gompi prof stats: wrote %s\n", p)
		}
	}
	return err
}
