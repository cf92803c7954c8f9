package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestUpToDate fails when calls_gen.go differs from what tracegen writes
// now: run go generate in components/prof/trace.
func TestUpToDate(t *testing.T) {
	dir := filepath.Join("..", "..")
	want, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, genFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./components/prof/trace", genFile)
	}
}
