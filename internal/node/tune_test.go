package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gompi/gompi/params"
)

// TestMissingTuneFiles: a host without a job's --tune file says which,
// before any rank starts; with the files there is nothing to say.
func TestMissingTuneFiles(t *testing.T) {
	here := filepath.Join(t.TempDir(), "t.conf")
	if err := os.WriteFile(here, []byte("btl = self,sm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone.conf")
	if err := missingTuneFiles(params.Launch{Tune: []string{here}}.Env()); err != nil {
		t.Errorf("a --tune file that exists: %v", err)
	}
	err := missingTuneFiles(params.Launch{Tune: []string{here, gone}}.Env())
	if err == nil || !strings.HasPrefix(err.Error(), "--tune "+gone+": no such file on this host") {
		t.Errorf("a --tune file missing: %v, want an error naming %s", err, gone)
	}
}
