package node

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSessionOwnerWhole: a new session directory holds its owner record,
// naming this process, and nothing half-written beside it.
func TestSessionOwnerWhole(t *testing.T) {
	s, err := NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Remove()
	if _, err := selfOwner(); err != nil {
		t.Skipf("no owner to record here: %v", err)
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{ownerFile}) {
		t.Errorf("session directory holds %q, want only %q", names, ownerFile)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, ownerFile))
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseOwner(b)
	if err != nil {
		t.Fatalf("owner record %q: %v", b, err)
	}
	if o.pid != os.Getpid() {
		t.Errorf("owner record names pid %d, want this process, %d", o.pid, os.Getpid())
	}
}
