package launcher

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestMergeParts: once every rank has exited, the parts the ranks left in
// the session directory go to their tools' mergers by rank (rank 2 left
// none, and its half-written file is not a part), and gompirun lists the
// reports. A file that is no part, a tool without a merger, a merger's
// error and its panic are warnings naming the tool, rank or file, and
// lose nothing else. A tool the job ran of which no rank left a part is
// named too.
func TestMergeParts(t *testing.T) {
	const script = `d=$GOMPI_SESSION_DIR/parts; mkdir -p $d
case $GOMPI_COMM_WORLD_RANK in
0) printf a0 > $d/alpha.0; printf b0 > $d/beta.0; printf n0 > $d/nomerger.0; printf g0 > $d/gamma.0
   printf x > $d/junk; printf x > $d/alpha.7 ;;
1) printf a1 > $d/alpha.1; printf bad > $d/beta.1 ;;
2) printf half > $d/.alpha.2.123 ;;
esac`
	got := map[string]string{}
	var jobs []string
	mergers := map[string]MergeFunc{
		"alpha": func(job string, parts map[int][]byte) ([]string, error) {
			jobs = append(jobs, job)
			got["alpha"] = show(parts)
			return []string{"alpha-report"}, nil
		},
		"beta": func(job string, parts map[int][]byte) ([]string, error) {
			got["beta"] = show(parts)
			return []string{"beta-report"}, errors.New("rank 1's part: junk")
		},
		"gamma": func(string, map[int][]byte) ([]string, error) { panic("boom") },
	}
	mergers["delta"] = func(string, map[int][]byte) ([]string, error) { panic("delta has no part to merge") }
	// The job ran alpha and delta; no rank left a part of delta's.
	cfg := Config{Mergers: func(tool string) MergeFunc { return mergers[tool] }, Profiling: []string{"alpha", "delta"}}
	code, _, stderr := runSh(t, 3, cfg, script)
	if code != 0 {
		t.Fatalf("exit status %d\n%s", code, stderr)
	}
	if got["alpha"] != "map[0:a0 1:a1]" || got["beta"] != "map[0:b0 1:bad]" {
		t.Errorf("the mergers got %v", got)
	}
	if len(jobs) != 1 || !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(jobs[0]) {
		t.Errorf("alpha merged for jobs %q, want the job's id once", jobs)
	}
	for _, want := range []string{
		"gompirun: report written: alpha-report\n",
		"gompirun: report written: beta-report\n",
		"gompirun: prof alpha: no part from rank 2, which did not finish Finalize",
		"gompirun: prof delta: no report: no rank finished Finalize\n",
		"gompirun: prof beta: no part from rank 2,",
		"gompirun: warning: prof beta: rank 1's part: junk\n",
		"gompirun: warning: prof gamma: the merger panicked: boom\n",
		"gompirun: warning: prof nomerger: rank 0 submitted parts of a report, but gompirun has no merger for the tool",
		"/parts/junk: not a part",
		"/parts/alpha.7: not a part",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, ".alpha.2") || strings.Count(stderr, "report written") != 2 || strings.Count(stderr, "no report") != 1 {
		t.Errorf("stderr names the unfinished part, or reports other than alpha's and beta's:\n%s", stderr)
	}
}

// show writes parts as text.
func show(parts map[int][]byte) string {
	m := map[int]string{}
	for r, b := range parts {
		m[r] = string(b)
	}
	return fmt.Sprint(m)
}
