package prof

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Merger merges the parts of a tool's job-wide report that the ranks
// submitted with pmpi.SubmitPart, by world rank, and writes the report,
// returning the paths of the files written. gompirun calls it when the
// job has ended, in its own working directory: a relative path is
// relative to it. Ranks that did not finish Finalize (a rank died, the job
// was stopped) have no part: the report says they are missing. An error
// does not void the paths returned with it: a part that does not decode
// is named in the error and left out of the report of the others.
type Merger func(job string, parts map[int][]byte) (paths []string, err error)

var mergers struct {
	sync.Mutex
	m map[string]Merger
}

// RegisterMerger registers the merger of the tool's parts, from the
// tool's init, as mca.Register registers its component. A program that
// links the tool, gompirun among them, can then merge its parts. It
// panics when tool already has one.
func RegisterMerger(tool string, m Merger) {
	mergers.Lock()
	defer mergers.Unlock()
	if _, dup := mergers.m[tool]; dup {
		panic(fmt.Sprintf("prof: a merger for %q is already registered", tool))
	}
	if mergers.m == nil {
		mergers.m = map[string]Merger{}
	}
	mergers.m[tool] = m
}

// MergerFor returns the merger registered for tool, nil if none is.
func MergerFor(tool string) Merger {
	mergers.Lock()
	defer mergers.Unlock()
	return mergers.m[tool]
}

// DecodeParts decodes, in rank order, the parts a Merger is handed, with
// decode, which returns a part's value, the rank it says it is from and
// the world's size as that rank knew it. A part that does not decode, or
// that names another rank, is left out and named in the error, as
// "rank R's WHAT". It returns the parts decoded, the world's size, and the
// ranks without a usable part; no part decoded is an error too.
func DecodeParts[T any](parts map[int][]byte, what string, decode func([]byte) (v T, rank, size int, err error)) (got []T, size int, missing []int, err error) {
	var errs []error
	have := map[int]bool{}
	for _, rank := range slices.Sorted(maps.Keys(parts)) {
		v, r, n, err := decode(parts[rank])
		if err == nil && r != rank {
			err = fmt.Errorf("it says it is world rank %d's", r)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("world rank %d's %s: %w", rank, what, err))
			continue
		}
		got = append(got, v)
		have[rank] = true
		size = max(size, n, rank+1)
	}
	if len(got) == 0 {
		errs = append(errs, fmt.Errorf("no rank's %s to merge", what))
	}
	missing = []int{}
	for r := range size {
		if !have[r] {
			missing = append(missing, r)
		}
	}
	return got, size, missing, errors.Join(errs...)
}
