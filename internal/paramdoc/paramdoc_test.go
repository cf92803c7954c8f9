package paramdoc

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/hashicorp/go-hclog"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/pmpi"
)

var update = flag.Bool("update", false, "rewrite docs/parameters.md")

const docPath = "../../docs/parameters.md"

// TestParametersDocIsCurrent fails when docs/parameters.md no longer matches
// the registered parameters; "make docs" regenerates it.
func TestParametersDocIsCurrent(t *testing.T) {
	sys := mca.New(mca.Options{Logger: hclog.NewNullLogger(), Params: pmpi.RegisterParams})
	var got bytes.Buffer
	if err := Write(&got, sys.Params().Defs()); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(docPath, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v (run make docs)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%s is stale: run make docs", docPath)
	}
}
