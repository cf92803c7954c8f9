package prof

import (
	"bytes"
	"os"
	"testing"

	"github.com/gompi/gompi/frameworks/prof/internal/apigen"
)

// TestGeneratedFilesAreCurrent fails when pmpi.API changed and make
// generate was not run: the base and the table must list every call.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	src, err := os.ReadFile("../../pmpi/api.go")
	if err != nil {
		t.Fatal(err)
	}
	fns, err := apigen.Parse("pmpi/api.go", src)
	if err != nil {
		t.Fatal(err)
	}
	base, err := apigen.Base(fns)
	if err != nil {
		t.Fatal(err)
	}
	table, err := apigen.Table(fns)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := apigen.Recorder(fns)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]byte{"base_gen.go": base, "functions_gen.go": table, "record_gen.go": rec} {
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make generate", file)
		}
	}
	if len(Functions) != len(fns) {
		t.Errorf("Functions lists %d calls; pmpi.API has %d", len(Functions), len(fns))
	}
}
