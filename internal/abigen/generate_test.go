package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedIsCurrent fails when capi/mpi.abi or capi's
// implementations changed and make generate-abi was not run.
func TestGeneratedIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run make generate-abi", path)
		}
	}
}
