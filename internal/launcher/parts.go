package launcher

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/jobfiles"
)

// MergeFunc merges the parts of one profiling tool's report that the
// ranks submitted (pmpi.SubmitPart), by world rank, some ranks perhaps
// missing, writes the report and returns the paths written. It has the
// shape of prof.Merger, which the launcher does not import.
type MergeFunc func(job string, parts map[int][]byte) (paths []string, err error)

// mergeParts merges, tool by tool, the parts the ranks left in the
// session's parts directory, once every rank has exited, and returns the
// paths of the reports written. What cannot be merged is a warning on
// stderr naming the tool and the ranks or file, and loses nothing else; a
// tool the job ran without a part from any rank is named too.
func (j *job) mergeParts() []string {
	w := j.term.stderr()
	parts, bad := jobfiles.ReadParts(j.sessDir, j.np)
	for _, err := range bad {
		fmt.Fprintf(w, "gompirun: warning: profiling parts: %v; ignored\n", err)
	}
	for _, tool := range j.cfg.Profiling {
		if _, ok := parts[tool]; !ok {
			fmt.Fprintf(w, "gompirun: prof %s: no report: no rank finished Finalize\n", tool)
		}
	}
	var paths []string
	for _, tool := range slices.Sorted(maps.Keys(parts)) {
		byRank := parts[tool]
		ranks := slices.Sorted(maps.Keys(byRank))
		var merge MergeFunc
		if j.cfg.Mergers != nil {
			merge = j.cfg.Mergers(tool)
		}
		if merge == nil {
			fmt.Fprintf(w, "gompirun: warning: prof %s: %s submitted parts of a report, but gompirun has no merger for the tool; they are lost\n",
				tool, rankList(ranks))
			continue
		}
		var missing []int
		for r := range j.np {
			if _, ok := byRank[r]; !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(w, "gompirun: prof %s: no part from %s, which did not finish Finalize; the report says so\n",
				tool, rankList(missing))
		}
		got, err := safeMerge(merge, j.jobID, byRank)
		if err != nil {
			fmt.Fprintf(w, "gompirun: warning: prof %s: %s\n", tool, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		paths = append(paths, got...)
	}
	return paths
}

// safeMerge runs a tool's merger, turning its panic into an error: the
// job's files must still be removed.
func safeMerge(merge MergeFunc, job string, parts map[int][]byte) (paths []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the merger panicked: %v", p)
		}
	}()
	return merge(job, parts)
}

// rankList names ranks: "rank 2", "ranks 0, 1 and 3".
func rankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = strconv.Itoa(r)
	}
	if len(s) == 1 {
		return "rank " + s[0]
	}
	return "ranks " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// onIt names a host's ranks as its lines say them: "rank 2 on it is",
// "ranks 0 and 1 on it are".
func onIt(ranks []int) string {
	if len(ranks) == 1 {
		return rankList(ranks) + " on it is"
	}
	return rankList(ranks) + " on it are"
}
