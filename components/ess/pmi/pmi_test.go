package pmi

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// TestRankKey: every key of every rank maps to its own PMI key, made of
// the characters PMI allows.
func TestRankKey(t *testing.T) {
	seen := map[string]string{}
	for _, rank := range []int{0, 1, 12} {
		for _, key := range []string{"pmpi.host", "pmpi_host", "btl.tcp", "gompi.report/a b", "x-1", ""} {
			k := rankKey(rank, key)
			for _, ch := range k {
				if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
					t.Errorf("rankKey(%d, %q) = %q holds %q", rank, key, k, ch)
				}
			}
			if prev, dup := seen[k]; dup {
				t.Errorf("rankKey(%d, %q) = %q, as for %s", rank, key, k, prev)
			}
			seen[k] = key
		}
	}
}

// TestQueryDeclines: without a PMI launcher the component declines; with
// a broken launcher environment it stops Init.
func TestQueryDeclines(t *testing.T) {
	for _, v := range []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_JOBID"} {
		t.Setenv(v, "")
	}
	if _, err := join(t); err == nil || !strings.Contains(err.Error(), "no component recognises how this process was started") {
		t.Errorf("no launcher: %v, want pmi to decline", err)
	}
	t.Setenv("PMI_RANK", "3")
	if _, err := join(t); !errors.Is(err, mca.ErrFatal) || !strings.Contains(err.Error(), "PMI_RANK") {
		t.Errorf("PMI_RANK without PMI_FD: %v, want a fatal error naming it", err)
	}
}

// join loads the ess framework with this component alone and joins.
func join(t *testing.T) (ess.Runtime, error) {
	t.Helper()
	reg := mca.NewRegistry()
	reg.RegisterFramework(mca.FrameworkSpec{Name: ess.Name, Version: ess.APIVersion(), Accepts: mca.Implements[ess.Component]()})
	reg.Register(info)
	sys, err := mca.Load(mca.Options{Registry: reg, Logger: hclog.NewNullLogger()}, params.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	fw, err := sys.Framework(ess.Name)
	if err != nil {
		t.Fatal(err)
	}
	return ess.Join(context.Background(), fw)
}
