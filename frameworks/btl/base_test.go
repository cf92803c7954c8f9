package btl_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// A program that links no btl component gets an error that says how to
// link the standard ones, not only that no module reaches the peer.
func TestOpenWithoutComponentsSaysWhatToImport(t *testing.T) {
	reg := mca.NewRegistry()
	reg.RegisterFramework(mca.FrameworkSpec{
		Name: btl.Name, Version: btl.APIVersion(), Accepts: mca.Implements[btl.Component](),
	})
	sys, err := mca.Load(mca.Options{Registry: reg, Logger: hclog.NewNullLogger()}, params.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	fw, err := sys.Framework(btl.Name)
	if err != nil {
		t.Fatal(err)
	}
	procs := []btl.Proc{{Rank: 0, Hostname: "h"}, {Rank: 1, Hostname: "h"}}
	noFence := func(context.Context) error { return nil }
	_, err = btl.Open(context.Background(), fw, btl.InitEnv{Rank: 0, Size: 2}, procs, noFence)
	if !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("Open = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), `import _ "github.com/gompi/gompi/components/all"`) {
		t.Fatalf("error does not say what to import: %v", err)
	}
}
