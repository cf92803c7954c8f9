package multihost

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// TestOptionsAcrossHosts: what gompirun's options do on one host they do
// on every host: -x exports, --tune files, --tag-output (naming the
// host), and an out-of-process component loaded by each rank on its own
// host.
func TestOptionsAcrossHosts(t *testing.T) {
	t.Parallel()
	c := cluster.Up(t, 3, cluster.Options{})
	// Not under /tmp, which a cluster may make private to each host.
	dir, err := os.MkdirTemp("/var/tmp", "multihost_options")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	plugins := filepath.Join(dir, "plugins")
	if _, err := jobtest.Build(plugins, map[string]string{"mca_prof_jsonl": "../../examples/plugins/mca_prof_jsonl"}); err != nil {
		t.Fatal(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"hello": "../../examples/hello"})
	if err != nil {
		t.Fatal(err)
	}
	hello := bins["hello"]
	tune := filepath.Join(dir, "tune.conf")
	if err := os.WriteFile(tune, []byte("prof_jsonl_functions = Init,Finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(dir, "records")
	if err := os.Mkdir(records, 0o755); err != nil {
		t.Fatal(err)
	}

	r := runOn(t, c, "h1", "--host", "h1,h2,h3", "--tag-output", "-x", "MULTIHOST_X=exported", "sh", "-c", `echo "x=$MULTIHOST_X"`)
	if r.code != 0 {
		t.Fatalf("the job failed\n%v", r)
	}
	for rank := range 3 {
		want := regexp.MustCompile(fmt.Sprintf(`(?m)^\[\w+,%d\]\[h%d\]<stdout>:x=exported$`, rank, rank+1))
		if !want.MatchString(r.stdout) {
			t.Errorf("rank %d: no line %s\n%v", rank, want, r)
		}
	}

	r = runOn(t, c, "h1", "--host", "h1,h2,h3", "--tune", tune, "--mca", "mca_base_component_path", plugins,
		"--mca", "prof", "jsonl", "--mca", "prof_jsonl_dir", records, hello)
	if r.code != 0 {
		t.Fatalf("the job with the plugin failed\n%v", r)
	}
	for rank := range 3 {
		files, _ := filepath.Glob(filepath.Join(records, fmt.Sprintf("gompi-jsonl-*.%d.jsonl", rank)))
		if len(files) != 1 {
			t.Errorf("rank %d: record files %v, want one", rank, files)
			continue
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		// The tune file limits the records to two functions.
		if n := strings.Count(string(b), "\n"); n != 2 || !strings.Contains(string(b), `"Init"`) || !strings.Contains(string(b), `"Finalize"`) {
			t.Errorf("rank %d recorded %d lines, want Init and Finalize only (the --tune file's prof_jsonl_functions):\n%s", rank, n, b)
		}
	}
	checkClean(t, c)
}
