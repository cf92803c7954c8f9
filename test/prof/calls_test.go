package prof_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/internal/wrappergen"
)

var update = flag.Bool("update", false, "rewrite testdata/every/every.go from every.w")

// TestEveryIsCurrent checks that the every tool stackcheck links is what
// gompi-wrappergen makes of every.w today.
func TestEveryIsCurrent(t *testing.T) {
	const w, out = "testdata/every/every.w", "testdata/every/every.go"
	src, err := os.ReadFile(w)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := wrappergen.Generate(wrappergen.Config{Package: "every", Component: "every",
		Wrappers: []wrappergen.Wrapper{{Name: w, Src: src}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Warnings) > 0 {
		t.Errorf("warnings: %q", gen.Warnings)
	}
	if *update {
		if err := os.WriteFile(out, gen.Code, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have, err := os.ReadFile(out); err != nil || !bytes.Equal(have, gen.Code) {
		t.Errorf("%s is not what the generator makes of %s (%v): run go test ./test/prof -run TestEveryIsCurrent -update", out, w, err)
	}
}

// TestOneUserCallOneToolCall: each call of package mpi reaches a tool as
// the one call the user made, and nothing else (the datatype and Info
// calls too, a layout's constructor as the two C makes), even those that need the
// communicator's size (to cut a buffer into blocks) or to know whether
// this rank is the root (the in-place forms): mpi reads those below the
// stack.
func TestOneUserCallOneToolCall(t *testing.T) {
	j := jobtest.Run(t, gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "2", "--mca", "prof", "every", stackcheck, "onecall")
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	want := strings.Join([]string{
		"Alltoall: Alltoall",
		"AlltoallInPlace: Alltoall",
		"AllgatherInPlace: Allgather",
		"GatherInPlace: Gather", // at the root
		"GathervInPlace: Gatherv",
		"ScatterInPlace: Scatter",
		"ReduceInPlace: Reduce",
		"ReduceScatterBlockInPlace: ReduceScatterBlock",
		// A layout's constructor is the type constructor and the commit,
		// as in C; a send with it one call.
		"Vector: TypeVector TypeCommit",
		"Darray: TypeDarray TypeCommit TypeFree",
		"TypeStruct: TypeStruct TypeCommit TypeFree",
		"SendrecvLayout: Sendrecv",
		"Pack: Pack", "Unpack: Unpack", "PackSize: PackSize",
		"PackExternal: PackExternal", "UnpackExternal: UnpackExternal", "PackExternalSize: PackExternalSize",
		"TypeCreateKeyval: TypeCreateKeyval", "TypeSetAttr: TypeSetAttr", "TypeGetAttr: TypeGetAttr",
		"Layout.Dup: TypeDup", "TypeDeleteAttr: TypeDeleteAttr", "TypeFreeKeyval: TypeFreeKeyval",
		"TypeFree: TypeFree", "Layout.Free: TypeFree",
		"InfoCreate: InfoCreate", "Info.Set: InfoSet", "Info.Get: InfoGet", "Info.NKeys: InfoGetNkeys",
		"Info.NthKey: InfoGetNthkey", "Info.Dup: InfoDup InfoFree", "Info.Delete: InfoDelete", "Info.Free: InfoFree",
	}, "\n")
	if got := strings.TrimSpace(j.Stdout); got != want {
		t.Fatalf("for each user call (left), the tool saw (right):\n%s\nwant:\n%s", got, want)
	}
}

// TestPcontrolBeforeInit: Pcontrol(0) before Init, when no tool is
// stacked yet, reaches the tools as Init stacks them, so that nothing is
// counted until Pcontrol(1): neither by the recording tool every nor by
// stats, below it.
func TestPcontrolBeforeInit(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "stats")
	j := jobtest.Run(t, gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "2",
		"--mca", "prof", "every,stats", "--mca", "prof_stats_output", prefix, stackcheck, "pcontrol")
	if j.Code != 0 {
		t.Fatalf("job failed\n%v", j)
	}
	want := strings.Join([]string{
		"Pcontrol(0)",
		"Init (stopped)",
		"CommWorld (stopped)",
		"CommRank (stopped)",
		"Barrier (stopped)",
		"Allreduce (stopped)",
		"Pcontrol(1)",
		"Bcast",
		"Barrier",
		"Finalize",
	}, "\n")
	if got := strings.TrimSpace(j.Stdout); got != want {
		t.Errorf("rank 0's tool saw:\n%s\nwant:\n%s", got, want)
	}

	rep := readStats(t, filepath.Dir(prefix), filepath.Base(prefix))
	counted := map[string]int64{}
	for _, f := range rep.Total.Functions {
		if f.Calls > 0 {
			counted[f.Name] = f.Calls
		}
	}
	// The second batch on both ranks: one Bcast and one Barrier each.
	if len(counted) != 2 || counted["Bcast"] != 2 || counted["Barrier"] != 2 {
		t.Errorf("stats counted %v, want only the second batch: Bcast 2, Barrier 2", counted)
	}
}
