package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubLibrary stands in for libmpi_abi.so.1, so that the compile test
// checks the wrapper (header path, library, rpath) and not gompi's library,
// which takes a minute to build. It is compiled against the real header,
// so its signatures are the standard ABI's.
const stubLibrary = `#include <mpi.h>
int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return MPI_SUCCESS; }
int MPI_Comm_rank(MPI_Comm comm, int *rank) { *rank = comm == MPI_COMM_WORLD ? 42 : -1; return MPI_SUCCESS; }
int MPI_Finalize(void) { return MPI_SUCCESS; }
`

// hello is both C and C++.
const hello = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d\n", rank);
	MPI_Finalize();
	return 0;
}
`

// stubPrefix is an installation holding the real header and a stub
// library built with cc.
func stubPrefix(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc)")
	}
	prefix := t.TempDir()
	header, err := os.ReadFile("../../capi/include/mpi.h")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(prefix, "include", "mpi.h"), string(header))
	src := filepath.Join(t.TempDir(), "stub.c")
	writeFile(t, src, stubLibrary)
	lib := filepath.Join(prefix, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "cc", "-shared", "-fPIC", "-Wl,-soname,libmpi_abi.so.1", "-I"+filepath.Join(prefix, "include"),
		src, "-o", filepath.Join(lib, "libmpi_abi.so.1"))
	if err := os.Symlink("libmpi_abi.so.1", filepath.Join(lib, "libmpi_abi.so")); err != nil {
		t.Fatal(err)
	}
	return prefix
}

func mustRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// runWrapper runs an installed wrapper in dir.
func runWrapper(t *testing.T, dir, wrapper string, args ...string) {
	t.Helper()
	cmd := wrapperCmd(wrapper, args)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(wrapper), strings.Join(args, " "), err, out)
	}
}

// checkHello runs a program built from hello: it must find the stub
// library through the rpath alone.
func checkHello(t *testing.T, prog string) {
	t.Helper()
	cmd := exec.Command(prog)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LD_LIBRARY_PATH=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
	if got := string(out); got != "rank 42\n" {
		t.Errorf("%s printed %q, want the stub's rank 42", prog, got)
	}
}

func TestGompiccBuildsAProgram(t *testing.T) {
	prefix := stubPrefix(t)
	gompicc := installWrapper(t, prefix, "gompicc")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hello.c"), hello)

	runWrapper(t, dir, gompicc, "-Wall", "-Werror", "hello.c", "-o", "hello")
	checkHello(t, filepath.Join(dir, "hello"))

	// Compiling and linking apart.
	runWrapper(t, dir, gompicc, "-c", "hello.c", "-o", "hello.o")
	runWrapper(t, dir, gompicc, "hello.o", "-o", "hello2")
	checkHello(t, filepath.Join(dir, "hello2"))
}

func TestGompicxxBuildsAProgram(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no C++ compiler (c++)")
	}
	prefix := stubPrefix(t)
	gompicxx := installWrapper(t, prefix, "gompicxx")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hello.cpp"), hello)

	runWrapper(t, dir, gompicxx, "-Wall", "-Werror", "hello.cpp", "-o", "hello")
	checkHello(t, filepath.Join(dir, "hello"))
}

// stubStart stands in for the library's gompi_run_main, which the start
// archive's __wrap_main calls with the program's main.
const stubStart = `#include <stdio.h>
int gompi_run_main(int (*main)(int, char **, char **), int argc, char **argv, char **envp) {
	printf("main from the library\n");
	fflush(stdout);
	return main(argc, argv, envp);
}
`

// TestGompiccRunsMainFromTheLibrary: with the start archive beside the
// library (capi/start/start.c, as make build makes it), a program's main
// runs as a call from the library, with its arguments and exit status;
// a shared library links without it, and a program whose main is in an
// archive links with it.
func TestGompiccRunsMainFromTheLibrary(t *testing.T) {
	prefix := stubPrefix(t)
	lib := filepath.Join(prefix, "lib")
	src := filepath.Join(t.TempDir(), "stub.c")
	writeFile(t, src, stubLibrary+stubStart)
	mustRun(t, "", "cc", "-shared", "-fPIC", "-Wl,-soname,libmpi_abi.so.1", "-I"+filepath.Join(prefix, "include"),
		src, "-o", filepath.Join(lib, "libmpi_abi.so.1"))
	mustRun(t, "", "make", "--no-print-directory", "-C", "../..", "start-archive", "LIB="+lib)
	gompicc := installWrapper(t, prefix, "gompicc")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "args.c"), `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	printf("%d %s\n", argc, argv[argc - 1]);
	MPI_Finalize();
	return 5;
}
`)
	runWrapper(t, dir, gompicc, "-Wall", "-Werror", "args.c", "-o", "args")
	out, err := exec.Command(filepath.Join(dir, "args"), "one", "two").Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 5 {
		t.Fatalf("args exited with %v, want status 5 from main", err)
	}
	if want := "main from the library\n3 two\n"; string(out) != want {
		t.Errorf("args printed %q, want %q", out, want)
	}

	// A program whose main is in an archive of its own, as HPL's is.
	runWrapper(t, dir, gompicc, "-c", "args.c", "-o", "args.o")
	mustRun(t, dir, "ar", "rc", "libargs.a", "args.o")
	runWrapper(t, dir, gompicc, "-o", "args2", "libargs.a")
	out, err = exec.Command(filepath.Join(dir, "args2"), "three").Output()
	if !errors.As(err, &exit) || exit.ExitCode() != 5 {
		t.Fatalf("args2 exited with %v, want status 5 from main", err)
	}
	if want := "main from the library\n2 three\n"; string(out) != want {
		t.Errorf("args2 printed %q, want %q", out, want)
	}

	writeFile(t, filepath.Join(dir, "lib.c"), "#include <mpi.h>\nint rank(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }\n")
	runWrapper(t, dir, gompicc, "-shared", "-fPIC", "lib.c", "-o", "librank.so")
}
