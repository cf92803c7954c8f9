package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// write writes the report's files and returns their paths.
func write(cfg config, r *Report) ([]string, error) {
	base := cfg.output + "." + r.Job
	var paths []string
	var errs []error
	put := func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			errs = append(errs, err)
			return
		}
		paths = append(paths, path)
	}
	var txt bytes.Buffer
	writeText(&txt, r, cfg.top)
	put(base+".txt", txt.Bytes())
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return paths, fmt.Errorf("encode JSON: %w", err)
	}
	put(base+".json", append(js, '\n'))
	if cfg.svg {
		var svg bytes.Buffer
		writeSVG(&svg, r)
		put(base+".svg", svg.Bytes())
	}
	return paths, errors.Join(errs...)
}
