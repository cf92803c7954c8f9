package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/version"
)

// testWrapper is a wrapper for prefix /p run as name, with env as its
// environment.
func testWrapper(t *testing.T, name string, env map[string]string) *wrapper {
	t.Helper()
	if _, ok := env["GOMPI_PREFIX"]; !ok {
		env["GOMPI_PREFIX"] = "/p"
	}
	w, err := newWrapper(name, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const (
	inc  = "-I/p/include"
	link = "-L/p/lib -lmpi_abi -Wl,-rpath,/p/lib"
)

func TestCommandAddsTheFlagsTheStageNeeds(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{})
	for _, c := range []struct{ args, want string }{
		{"", "cc " + inc + " " + link},
		{"hello.c -o hello", "cc hello.c -o hello " + inc + " " + link},
		{"hello.o", "cc hello.o " + inc + " " + link},
		{"-c hello.c -o hello.o", "cc -c hello.c -o hello.o " + inc},
		{"-S hello.c", "cc -S hello.c " + inc},
		{"-E hello.c", "cc -E hello.c " + inc},
		{"-M hello.c", "cc -M hello.c " + inc},
		{"-MM hello.c", "cc -MM hello.c " + inc},
		{"-fsyntax-only hello.c", "cc -fsyntax-only hello.c " + inc},
		{"-MD -c hello.c", "cc -MD -c hello.c " + inc},
		{"-MD hello.c", "cc -MD hello.c " + inc + " " + link},
		{"-x c -", "cc -x c - " + inc + " " + link},
		{"-shared -fPIC tool.c -o libtool.so", "cc -shared -fPIC tool.c -o libtool.so " + inc + " " + link},
		// Questions for the compiler alone get no flags.
		{"--version", "cc --version"},
		{"-v", "cc -v"},
		{"-dumpmachine", "cc -dumpmachine"},
		{"-c", "cc -c " + inc},
	} {
		got := strings.Join(w.command(strings.Fields(c.args)), " ")
		if got != c.want {
			t.Errorf("gompicc %s:\n got %s\nwant %s", c.args, got, c.want)
		}
	}
}

func TestArgumentsPassThroughUntouched(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{})
	args := []string{"-DMSG=a b", "-O2", "-I", "my dir", "-Wl,--as-needed,-z,now", "-showmex", "--show",
		"-lm", "'quoted'", "", "main.c", "-o", "prog", "-lpthread"}
	req, err := parseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if req.show {
		t.Fatalf("%q taken for --showme", args)
	}
	cmd := w.command(req.args)
	if !slices.Equal(cmd[1:1+len(args)], args) {
		t.Errorf("the compiler gets %q, want the arguments as given, %q, first", cmd, args)
	}
}

func TestShowme(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{})
	for _, c := range []struct{ args, want string }{
		{"--showme", "cc " + inc + " " + link},
		{"-showme", "cc " + inc + " " + link},
		{"--showme -c x.c -o x.o", "cc -c x.c -o x.o " + inc},
		{"-c x.c --showme", "cc -c x.c " + inc},
		{"--showme x.c -o x", "cc x.c -o x " + inc + " " + link},
		{"--showme:command", "cc"},
		{"--showme:compile", inc},
		{"--showme:link", link},
		{"-showme:link", link},
		{"--showme:incdirs", "/p/include"},
		{"--showme:libdirs", "/p/lib"},
		{"--showme:libs", "mpi_abi"},
		{"--showme:version", "gompicc: gompi " + version.Version + " (Language: C)"},
		{"--showme:libs --showme:command", "cc"},
		{"-show", "cc " + inc + " " + link},
		{"-show -c x.c", "cc -c x.c " + inc},
		{"-compile_info", "cc " + inc},
		{"-compile-info x.c", "cc x.c " + inc},
		{"-link_info", "cc " + inc + " " + link},
		{"-link-info -O2", "cc -O2 " + inc + " " + link},
	} {
		req, err := parseArgs(strings.Fields(c.args))
		if err != nil {
			t.Errorf("gompicc %s: %v", c.args, err)
			continue
		}
		if !req.show {
			t.Errorf("gompicc %s: not taken for --showme", c.args)
			continue
		}
		if got := w.showme(req); got != c.want {
			t.Errorf("gompicc %s:\n got %s\nwant %s", c.args, got, c.want)
		}
	}
	req, _ := parseArgs([]string{"--showme:help"})
	if got := w.showme(req); !strings.Contains(got, "--showme:libdirs") || !strings.HasPrefix(got, "gompicc ") {
		t.Errorf("--showme:help prints\n%s", got)
	}
}

func TestShowmeQuotesForTheShell(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{"GOMPI_PREFIX": "/opt/my gompi", "GOMPI_CC": "ccache gcc"})
	req, err := parseArgs([]string{"--showme", "-DS=it's", "a.c"})
	if err != nil {
		t.Fatal(err)
	}
	want := `ccache gcc '-DS=it'\''s' a.c '-I/opt/my gompi/include' '-L/opt/my gompi/lib' -lmpi_abi '-Wl,-rpath,/opt/my gompi/lib'`
	got := w.showme(req)
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The shell gives back the words the wrapper would run.
	out, err := exec.Command("/bin/sh", "-c", `for w in `+got+`; do echo "[$w]"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, s := range w.command(req.args) {
		words = append(words, "["+s+"]")
	}
	if got, want := strings.TrimSpace(string(out)), strings.Join(words, "\n"); got != want {
		t.Errorf("the shell splits --showme's line into\n%s\nwant\n%s", got, want)
	}
}

func TestBadShowme(t *testing.T) {
	for _, a := range []string{"--showme:bogus", "--showme:", "-showme:Compile"} {
		_, err := parseArgs([]string{a, "x.c"})
		if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), ":incdirs") {
			t.Errorf("%s: err = %v, want one naming it and the forms allowed", a, err)
		}
	}
}

func TestCompilerByNameAndEnvironment(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
		lang string
	}{
		{"gompicc", map[string]string{}, []string{"cc"}, "C"},
		{"gompicxx", map[string]string{}, []string{"c++"}, "C++"},
		{"gompicxx-0.1", map[string]string{}, []string{"c++"}, "C++"},
		// Links named as mpicxx's are, which build systems are handed.
		{"mpicxx", map[string]string{}, []string{"c++"}, "C++"},
		{"mpic++", map[string]string{}, []string{"c++"}, "C++"},
		{"mpiCC", map[string]string{}, []string{"c++"}, "C++"},
		{"mpicc", map[string]string{}, []string{"cc"}, "C"},
		{"mpicc.gompi", map[string]string{}, []string{"cc"}, "C"},
		{"gompicc", map[string]string{"GOMPI_CC": "clang", "GOMPI_CXX": "clang++"}, []string{"clang"}, "C"},
		{"gompicxx", map[string]string{"GOMPI_CC": "clang", "GOMPI_CXX": "clang++"}, []string{"clang++"}, "C++"},
		{"gompicc", map[string]string{"GOMPI_CC": "  ccache  gcc-12 "}, []string{"ccache", "gcc-12"}, "C"},
		{"gompicc", map[string]string{"GOMPI_CC": " "}, []string{"cc"}, "C"},
	} {
		w := testWrapper(t, c.name, c.env)
		if !slices.Equal(w.compiler, c.want) || w.lang.name != c.lang {
			t.Errorf("%s with %v runs %q for %s, want %q for %s", c.name, c.env, w.compiler, w.lang.name, c.want, c.lang)
		}
	}
	w := testWrapper(t, "gompicxx", map[string]string{})
	if got, want := w.showme(request{show: true, what: "version"}), "gompicxx: gompi "+version.Version+" (Language: C++)"; got != want {
		t.Errorf("gompicxx --showme:version = %q, want %q", got, want)
	}
}

func TestRpathThroughXlinkerWhenThePrefixHasAComma(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{"GOMPI_PREFIX": "/opt/a,b"})
	want := []string{"-L/opt/a,b/lib", "-lmpi_abi", "-Xlinker", "-rpath", "-Xlinker", "/opt/a,b/lib"}
	if got := w.linkFlags(); !slices.Equal(got, want) {
		t.Errorf("link flags %q, want %q", got, want)
	}
}

func TestLinkFlagsWrapMainWhereTheStartArchiveIs(t *testing.T) {
	prefix := t.TempDir()
	writeFile(t, filepath.Join(prefix, "lib", startArchive), "!<arch>\n")
	w := testWrapper(t, "gompicc", map[string]string{"GOMPI_PREFIX": prefix})
	lib := filepath.Join(prefix, "lib")
	want := []string{"-Wl,--wrap=main", "-Wl,-u,main", filepath.Join(lib, startArchive), "-L" + lib, "-lmpi_abi", "-Wl,-rpath," + lib}
	if got := w.linkFlags(); !slices.Equal(got, want) {
		t.Errorf("link flags %q, want %q", got, want)
	}
}

func TestRelativePrefixBecomesAbsolute(t *testing.T) {
	w := testWrapper(t, "gompicc", map[string]string{"GOMPI_PREFIX": "inst"})
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wd, "inst"); w.prefix != want {
		t.Errorf("prefix %s, want %s", w.prefix, want)
	}
}

func TestCheckNamesWhatIsMissing(t *testing.T) {
	prefix := t.TempDir()
	w := testWrapper(t, "gompicc", map[string]string{"GOMPI_PREFIX": prefix})
	header := filepath.Join(prefix, "include", "mpi.h")
	lib := filepath.Join(prefix, "lib", "libmpi_abi.so")

	wantMissing := func(args []string, path string) {
		t.Helper()
		err := w.check(args)
		if err == nil {
			t.Fatalf("check(%q) passes without %s", args, path)
		}
		for _, s := range []string{path, "make build", "make install PREFIX=" + prefix, "GOMPI_PREFIX"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("check(%q) = %q, which does not say %q", args, err, s)
			}
		}
	}
	wantMissing([]string{"-c", "x.c"}, header)
	if err := w.check([]string{"--version"}); err != nil {
		t.Errorf("a question for the compiler needs no library: %v", err)
	}

	writeFile(t, header, "")
	if err := w.check([]string{"-c", "x.c"}); err != nil {
		t.Errorf("compiling needs only the header: %v", err)
	}
	wantMissing([]string{"x.c"}, lib)

	// A dangling libmpi_abi.so link is as good as none.
	if err := os.Mkdir(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libmpi_abi.so.1", lib); err != nil {
		t.Fatal(err)
	}
	wantMissing([]string{"x.c"}, lib)

	writeFile(t, filepath.Join(prefix, "lib", "libmpi_abi.so.1"), "")
	if err := w.check([]string{"x.c"}); err != nil {
		t.Errorf("with the header and the library: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
