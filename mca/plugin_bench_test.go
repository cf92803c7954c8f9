package mca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/params"
)

// BenchmarkPluginDescribe is what listing a plugin costs every process
// that scans the component path: start, handshake, Describe, stop.
func BenchmarkPluginDescribe(b *testing.B) {
	path := filepath.Join(testPlugins(b), "mca_test_echo")
	log := hclog.NewNullLogger()
	for b.Loop() {
		if _, err := describePlugin(context.Background(), path, log); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPluginLifecycle is what a selected plugin costs a rank from
// Init to Finalize, besides its framework's own calls: the describe step,
// then start, open, query, close and stop.
func BenchmarkPluginLifecycle(b *testing.B) {
	dir := b.TempDir()
	if err := os.Symlink(filepath.Join(testPlugins(b), "mca_test_echo"), filepath.Join(dir, "mca_test_echo")); err != nil {
		b.Fatal(err)
	}
	in := params.Inputs{CommandLine: []params.Setting{{Name: "mca_base_component_path", Value: dir}}}
	for b.Loop() {
		sys, err := Load(Options{Registry: pluginRegistry(), Logger: hclog.NewNullLogger()}, in)
		if err != nil {
			b.Fatal(err)
		}
		f, _ := sys.Framework(testFW)
		if err := f.Open(context.Background()); err != nil {
			b.Fatal(err)
		}
		if sel, err := f.Select(context.Background()); err != nil || len(sel) != 1 {
			b.Fatalf("selected %v, %v", sel, err)
		}
		if err := sys.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
