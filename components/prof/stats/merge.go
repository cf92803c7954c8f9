package stats

import (
	"encoding/json"
	"errors"

	"github.com/gompi/gompi/frameworks/prof"
)

// toolName names the tool's parts and its merger.
const toolName = "stats"

// merge is the tool's prof.Merger: gompirun calls it with the parts the
// ranks submitted at Finalize and it writes the report, with the
// parameters rank 0 resolved (those of the lowest rank present when rank
// 0 is missing). A part that does not decode is left out, as a missing
// rank, and named in the error.
func merge(job string, raw map[int][]byte) ([]string, error) {
	rep, cfg, err := build(job, raw)
	if rep == nil {
		return nil, err
	}
	paths, werr := write(cfg, rep)
	return paths, errors.Join(err, werr)
}

// build decodes the ranks' parts, by world rank, and aggregates them;
// it returns no report when no part decodes.
func build(job string, raw map[int][]byte) (*Report, config, error) {
	parts, size, missing, err := prof.DecodeParts(raw, "part", func(b []byte) (rankPart, int, int, error) {
		var p rankPart
		err := json.Unmarshal(b, &p)
		return p, p.Rank, p.Size, err
	})
	if len(parts) == 0 {
		return nil, config{}, err
	}
	pc := parts[0].Config
	cfg := config{output: pc.Output, top: pc.Top, svg: pc.SVG}
	if cfg.output == "" {
		cfg.output = "gompi-stats"
	}
	if cfg.top < 1 {
		cfg.top = 20
	}
	return aggregate(job, size, missing, parts), cfg, err
}
