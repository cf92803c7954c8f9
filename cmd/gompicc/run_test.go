package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// beWrapper, set to 1 in its environment, makes the test binary run as
// gompicc: the tests copy it into a prefix's bin/ and run it there, so
// that it finds the prefix as an installed wrapper does.
const beWrapper = "GOMPICC_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(beWrapper) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// installWrapper copies the test binary to prefix/bin/name and returns the
// path.
func installWrapper(t *testing.T, prefix, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	path := filepath.Join(prefix, "bin", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// wrapperCmd runs the wrapper at path with args, without GOMPI_PREFIX
// and with env added.
func wrapperCmd(path string, args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMPI_PREFIX=") && !strings.HasPrefix(kv, "GOMPI_CC=") &&
			!strings.HasPrefix(kv, "GOMPI_CXX=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, beWrapper+"=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// fakeCompiler writes a compiler that records its arguments, one a line,
// in the file $FAKE_CC_ARGS and exits with status 7.
func fakeCompiler(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-cc")
	writeFile(t, path, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$FAKE_CC_ARGS\"\nexit 7\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunsTheCompilerOfItsPrefix(t *testing.T) {
	prefix := t.TempDir()
	writeFile(t, filepath.Join(prefix, "include", "mpi.h"), "")
	writeFile(t, filepath.Join(prefix, "lib", "libmpi_abi.so"), "")
	gompicc := installWrapper(t, prefix, "gompicc")
	argsFile := filepath.Join(t.TempDir(), "args")
	args := []string{"-DMSG=hello world", "main.c", "-o", "main"}

	cmd := wrapperCmd(gompicc, args, "GOMPI_CC="+fakeCompiler(t), "FAKE_CC_ARGS="+argsFile)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("gompicc: %v (want the compiler's exit status, 7)\n%s", err, out)
	}
	got, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(prefix, "lib")
	want := append(slices.Clone(args), "-I"+filepath.Join(prefix, "include"), "-L"+lib, "-lmpi_abi", "-Wl,-rpath,"+lib)
	if g := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n"); !slices.Equal(g, want) {
		t.Errorf("the compiler got\n%q\nwant\n%q", g, want)
	}
}

func TestMissingLibraryStopsBeforeTheCompiler(t *testing.T) {
	prefix := t.TempDir()
	writeFile(t, filepath.Join(prefix, "include", "mpi.h"), "")
	gompicc := installWrapper(t, prefix, "gompicc")
	argsFile := filepath.Join(t.TempDir(), "args")

	out, err := wrapperCmd(gompicc, []string{"main.c"}, "GOMPI_CC="+fakeCompiler(t), "FAKE_CC_ARGS="+argsFile).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("gompicc without the library: %v, want exit status 1\n%s", err, out)
	}
	lib := filepath.Join(prefix, "lib", "libmpi_abi.so")
	if !strings.HasPrefix(string(out), "gompicc: "+lib+" does not exist") {
		t.Errorf("the error does not start by naming %s:\n%s", lib, out)
	}
	if _, err := os.Stat(argsFile); err == nil {
		t.Error("the compiler ran")
	}
}

func TestGompiPrefixOverridesThePath(t *testing.T) {
	other := t.TempDir()
	gompicc := installWrapper(t, t.TempDir(), "gompicc")
	out, err := wrapperCmd(gompicc, []string{"--showme:incdirs"}, "GOMPI_PREFIX="+other).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), filepath.Join(other, "include"); got != want {
		t.Errorf("--showme:incdirs = %s, want %s", got, want)
	}
}

func TestSymlinkedWrapperUsesTheInstallationItLinksTo(t *testing.T) {
	prefix := t.TempDir()
	gompicxx := installWrapper(t, prefix, "gompicxx")
	link := filepath.Join(t.TempDir(), "bin", "gompicxx")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gompicxx, link); err != nil {
		t.Fatal(err)
	}
	out, err := wrapperCmd(link, []string{"--showme", "-c", "x.cpp"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "c++ -c x.cpp -I"+filepath.Join(prefix, "include"); got != want {
		t.Errorf("--showme = %s, want %s", got, want)
	}
}

func TestErrorsNameTheCauseAndExitOne(t *testing.T) {
	prefix := t.TempDir()
	writeFile(t, filepath.Join(prefix, "include", "mpi.h"), "")
	gompicxx := installWrapper(t, prefix, "gompicxx")
	for _, c := range []struct {
		args []string
		env  []string
		want []string
	}{
		{[]string{"-c", "x.cpp"}, []string{"GOMPI_CXX=no-such-compiler-here"},
			[]string{`gompicxx: the C++ compiler "no-such-compiler-here"`, "GOMPI_CXX"}},
		{[]string{"--showme:linker", "x.cpp"}, nil,
			[]string{"gompicxx: unrecognized option --showme:linker", "gompicxx --showme:help"}},
	} {
		out, err := wrapperCmd(gompicxx, c.args, c.env...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("gompicxx %q: %v, want exit status 1\n%s", c.args, err, out)
		}
		for _, s := range c.want {
			if !strings.Contains(string(out), s) {
				t.Errorf("gompicxx %q says\n%s\nwhich lacks %q", c.args, out, s)
			}
		}
	}
}
