package capi_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
)

// prototypeLine is a function's declaration in mpi.h, MPI_ name only.
var prototypeLine = regexp.MustCompile(`^(\w+) (MPI_\w+)\((.*)\);$`)

// TestForeignBuild: a program linked against another implementation's
// libmpi_abi.so.1 (here a stub of every MPI_ function, each aborting, as
// the standard's reference stubs do) records only that soname, so it runs
// on gompi's library when the loader finds gompi's first. Nothing is
// rebuilt: the binary that ran on the stub runs on gompi.
func TestForeignBuild(t *testing.T) {
	if cc == "" {
		t.Skip(noCC)
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "stub.c")
	writeStub(t, stub)
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
		}
	}
	run("-O2", "-fPIC", "-shared", "-I"+include, "-Wl,-soname,libmpi_abi.so.1", "-o", filepath.Join(other, "libmpi_abi.so.1"), stub)
	if err := os.Symlink("libmpi_abi.so.1", filepath.Join(other, "libmpi_abi.so")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "handles")
	run("-O2", "-pthread", "-I"+include, "-o", bin, filepath.Join("testdata", "handles.c"), "-L"+other, "-lmpi_abi")

	// On the stub, the program stops at its first call.
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+other)
	if out, err := cmd.CombinedOutput(); err == nil || strings.Contains(string(out), "ok") {
		t.Fatalf("the program ran on the stub library: %v\n%s", err, out)
	}
	j := jobtest.Run(t, gompirun, hangLimit, nil, "-np", "2", "--tag-output", "-x", env,
		"-x", "LD_LIBRARY_PATH="+libDir+":"+other, bin)
	expectOK(t, j)
}

// writeStub writes a C file defining every MPI_ function of mpi.h as a
// call to abort.
func writeStub(t *testing.T, path string) {
	t.Helper()
	h, err := os.Open(filepath.Join(include, "mpi.h"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var b strings.Builder
	b.WriteString("#include <stdlib.h>\n#include <mpi.h>\n")
	n := 0
	sc := bufio.NewScanner(h)
	for sc.Scan() {
		if m := prototypeLine.FindStringSubmatch(sc.Text()); m != nil {
			b.WriteString(m[1] + " " + m[2] + "(" + m[3] + ") { abort(); }\n")
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 600 {
		t.Fatalf("mpi.h declares %d MPI_ functions; the ABI has 664", n)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStateReport: gompirun's state report of a deadlocked C program
// names the MPI call each rank waits in and what it waits for.
func TestStateReport(t *testing.T) {
	if cc == "" {
		t.Skip(noCC)
	}
	// With line tables the report names the C file and line; without, the
	// caller's offset in its object.
	for _, tc := range []struct {
		name, flag, recv, finalize string
	}{{"lines", "-g", "at hang.c:12", "at hang.c:13"}, {"no lines", "-g0", "at hang+0x", "at hang+0x"}} {
		t.Run(tc.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "hang")
			if out, err := exec.Command(cc, "-O2", tc.flag, "-I"+include, "-o", bin, filepath.Join("testdata", "hang", "hang.c"),
				"-L"+libDir, "-lmpi_abi", "-Wl,-rpath,"+libDir).CombinedOutput(); err != nil {
				t.Fatalf("%s hang.c: %v\n%s", cc, err, out)
			}
			hangReport(t, bin, nil,
				"rank 0 (pid", "waits in MPI_Recv "+tc.recv, "receive from rank 1, tag 5, comm MPI_COMM_WORLD",
				"rank 1 (pid", "receive from rank 0, tag 5", "deadlock")
			// Rank 0 leaves for MPI_Finalize: the report names that call
			// where the program made it, not a place in the library.
			hangReport(t, bin, []string{"finalize"},
				"rank 0 (pid", "waits in MPI_Finalize "+tc.finalize, "for every rank to call MPI_Finalize",
				"waits in MPI_Recv "+tc.recv, "receive from rank 0, tag 5",
				"but rank 0 waits in MPI_Finalize "+tc.finalize, "it left without the call rank 1 waits in")
		})
	}
}

// hangReport runs the deadlocking program bin on 2 ranks until
// gompirun's state report says every one of wants. --timeout counts the
// launch, which a loaded machine may not have finished when a short one
// ends the job, so each run allows longer.
func hangReport(t *testing.T, bin string, args []string, wants ...string) {
	t.Helper()
	var missing []string
	var j jobtest.Job
	for _, secs := range []string{"3", "15", "60"} {
		j = jobtest.Run(t, gompirun, hangLimit, nil, append([]string{"-np", "2", "--timeout", secs, "--report-state-on-timeout", "--report-state-wait", "20s", bin}, args...)...)
		if j.Code == 0 {
			t.Fatalf("the deadlocked job succeeded\n%v", j)
		}
		missing = missing[:0]
		for _, want := range wants {
			if !strings.Contains(j.Stderr, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 {
			return
		}
	}
	for _, want := range missing {
		t.Errorf("the state report does not say %q\n%v", want, j)
	}
}
