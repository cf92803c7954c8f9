package plugins_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// BenchmarkCollRulesFetch measures what a communicator's creation pays to
// fetch its rules from a running mca_coll_rules: one gRPC round trip over
// a unix socket, the plugin's filtering and the host's checks.
func BenchmarkCollRulesFetch(b *testing.B) {
	dir := b.TempDir()
	if _, err := jobtest.Build(dir, map[string]string{"mca_coll_rules": "../../examples/plugins/mca_coll_rules"}); err != nil {
		b.Fatal(err)
	}
	rules := filepath.Join(dir, "bench.rules")
	if err := os.WriteFile(rules, []byte("bcast * 0-64k binomial\nbcast * 64k- pipeline 32k\nallreduce * * ring\nalltoall 8- * pairwise\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	sys, err := mca.Load(mca.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: io.Discard})}, params.Inputs{CommandLine: []params.Setting{
		{Name: "mca_base_component_path", Value: dir}, {Name: "coll_rules_file", Value: rules}, {Name: "coll", Value: "rules"}}})
	if err != nil {
		b.Fatal(err)
	}
	defer sys.Close()
	fw, err := sys.Framework(coll.Name)
	if err != nil {
		b.Fatal(err)
	}
	if err := fw.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer fw.Close()
	sel, err := fw.Select(context.Background())
	if err != nil || len(sel) != 1 {
		b.Fatalf("selected %v, %v; want the rules plugin", sel, err)
	}
	d := sel[0].Component.(coll.Decider)
	c := colltest.NewWorld(4).Comm(0)
	b.ResetTimer()
	for b.Loop() {
		if r, err := d.CommRules(c); err != nil || r.Len() != 3 {
			b.Fatalf("rules %v, %v", r, err)
		}
	}
}
