package jobfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWritePart: a part is written whole under <tool>.<rank>, written
// again replaces it, and leaves no temporary file; a tool name that
// could leave the directory is refused.
func TestWritePart(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"first", "second"} {
		if err := WritePart(dir, "stats", 1, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	parts, bad := ReadParts(dir, 2)
	if len(parts) != 1 || len(parts["stats"]) != 1 || string(parts["stats"][1]) != "second" || bad != nil {
		t.Errorf("read %v, problems %v", parts, bad)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, PartsDir)); len(left) != 1 {
		t.Errorf("the parts directory holds %v", left)
	}
	for _, tool := range []string{"", "../x", "a.b", "a/b"} {
		if err := WritePart(dir, tool, 0, nil); err == nil {
			t.Errorf("tool %q accepted", tool)
		}
	}
	if parts, bad := ReadParts(t.TempDir(), 2); parts != nil || bad != nil {
		t.Errorf("no parts directory: %v, %v", parts, bad)
	}
}
