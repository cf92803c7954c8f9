package pmpi

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/params"
)

func TestHostCPUsCountsTheHostNotTheMask(t *testing.T) {
	if n := hostCPUs(); n < runtime.NumCPU() {
		t.Fatalf("hostCPUs() = %d, fewer than this process may use (%d)", n, runtime.NumCPU())
	}
}

func TestEngineConfigDozes(t *testing.T) {
	reg := params.NewRegistry()
	if err := RegisterParams(reg); err != nil {
		t.Fatal(err)
	}
	resolve := func(doze string) (*params.Snapshot, error) {
		return reg.Resolve(params.Inputs{CommandLine: []params.Setting{
			{Name: paramDoze, Value: doze}, {Name: paramYield, Value: "yes"},
		}})
	}
	snap, err := resolve("150")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := engineConfig(snap, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DozeAfter != 150*time.Microsecond || !cfg.YieldAtOnce {
		t.Fatalf("config %+v, want DozeAfter 150us and YieldAtOnce", cfg)
	}
	if _, err := resolve("-1"); err == nil || !strings.Contains(err.Error(), paramDoze) {
		t.Fatalf("a negative %s: %v, want an error naming it", paramDoze, err)
	}
}

func TestGOMAXPROCSIsBounded(t *testing.T) {
	reg := params.NewRegistry()
	if err := RegisterParams(reg); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"-1", "0", "1", "1024"} {
		if _, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: paramProcs, Value: v}}}); err != nil {
			t.Errorf("%s %s: %v", paramProcs, v, err)
		}
	}
	for _, v := range []string{"-2", "1025", "100000", "2147483648"} {
		_, err := reg.Resolve(params.Inputs{CommandLine: []params.Setting{{Name: paramProcs, Value: v}}})
		if err == nil || !strings.Contains(err.Error(), paramProcs) || !strings.Contains(err.Error(), "1 to 1024") {
			t.Errorf("%s %s: %v, want an error naming it and 1 to 1024", paramProcs, v, err)
		}
	}
}
