package compare

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGo is a go command that runs no test: it does what script says,
// with the -measure-json file as $json.
func fakeGo(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "go")
	body := "#!/bin/sh\nfor a; do [ \"$prev\" = -measure-json ] && json=$a; prev=$a; done\n" + script + "\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func measureWith(t *testing.T, script string) (*AcrossHosts, error) {
	t.Helper()
	return MeasureAcross(context.Background(), AcrossConfig{Go: fakeGo(t, script), Rounds: 2, Timeout: time.Minute, Log: io.Discard})
}

// TestMeasureAcross: the results the test writes are read, a skip is a
// reason and no error, and a failure is an error with a reason.
func TestMeasureAcross(t *testing.T) {
	a, err := measureWith(t, `cat >"$json" <<'EOF'
{"rounds": 2, "hosts": 8, "libraries": [{"name": "gompi"}, {"name": "MPICH"}],
 "measures": [{"name": "latency 8 B", "unit": "us"}],
 "runs": [{"measure": "latency 8 B", "library": "gompi", "round": 2, "value": 12.5}]}
EOF`)
	if err != nil || a.Results == nil || a.Results.Runs[0].Value != 12.5 || a.Absent != "" {
		t.Fatalf("measured: %+v, %v", a, err)
	}
	if !strings.Contains(a.Command, "test ./test/multihost -run '^TestMeasureAcrossHosts$' -count=1 -v -timeout 1m0s -args -measure -measure-rounds 2 -measure-json FILE") {
		t.Errorf("command %q", a.Command)
	}

	for name, script := range map[string]string{
		"TestMain's skip": `echo "skipped: no hosts can be built here: cluster: building hosts needs root"`,
		"the test's skip": `echo '{"skipped": "no hosts can be built here: cluster: building hosts needs root"}' >"$json"`,
	} {
		a, err := measureWith(t, script)
		if err != nil || a.Results != nil || a.Absent != "no hosts can be built here: cluster: building hosts needs root" {
			t.Errorf("%s: %+v, %v", name, a, err)
		}
	}

	for name, c := range map[string]struct{ script, absent, err string }{
		"failed":     {"echo FAIL; exit 1", "the measurement failed: exit status 1", "FAIL"},
		"no results": {"echo PASS", "the measurement wrote no results", "wrote no results and gave no reason"},
		"bad results": {`echo '{"rounds": 0, "libraries": [{"name": "gompi"}]}' >"$json"`, "its results were unreadable: ",
			"0 rounds: want 1 or more"},
	} {
		a, err := measureWith(t, c.script)
		if err == nil || !strings.Contains(err.Error(), c.err) || a == nil || a.Results != nil || !strings.HasPrefix(a.Absent, c.absent) {
			t.Errorf("%s: %+v, %v", name, a, err)
		}
	}
}
