package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/params"
)

func testHost(env map[string]string) host {
	return host{
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		numCPU:    4,
	}
}

func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	var out bytes.Buffer
	return parseArgs(args, testHost(map[string]string{"HOME": "/home/u"}), &out)
}

func mustParse(t *testing.T, args ...string) *options {
	t.Helper()
	o, err := parse(t, args...)
	if err != nil {
		t.Fatalf("parseArgs(%q): %v", args, err)
	}
	if o == nil {
		t.Fatalf("parseArgs(%q): no options", args)
	}
	return o
}

func TestParseNP(t *testing.T) {
	for _, args := range [][]string{
		{"-np", "3", "prog"}, {"--np", "3", "prog"}, {"-n", "3", "prog"}, {"--n", "3", "prog"},
		{"-np=3", "prog"}, {"--np=3", "prog"}, {"-n3", "prog"},
	} {
		if a := mustParse(t, args...).apps[0]; a.np != 3 || a.program != "prog" {
			t.Errorf("%q: np %d program %q", args, a.np, a.program)
		}
	}
}

func TestProgramFlagsAreNotOurs(t *testing.T) {
	o := mustParse(t, "-np", "2", "-tag-output", "prog", "-np", "9", "--mca", "x", "y", "-x")
	if a := o.apps[0]; !o.output.Tag || a.np != 2 || a.program != "prog" || len(o.mca) != 0 {
		t.Fatalf("options %+v", o)
	}
	if want := []string{"-np", "9", "--mca", "x", "y", "-x"}; !slices.Equal(o.apps[0].args, want) {
		t.Fatalf("program args %q, want %q", o.apps[0].args, want)
	}
	a := mustParse(t, "-np", "1", "--", "-prog-with-dash", "a").apps[0]
	if a.program != "-prog-with-dash" || !slices.Equal(a.args, []string{"a"}) {
		t.Fatalf("after --: program %q args %q", a.program, a.args)
	}
}

// MPMD: each app context has its own -np, -x, program and arguments; the
// job's options come before the first program.
func TestParseAppContexts(t *testing.T) {
	o := mustParse(t, "--tag-output", "-np", "1", "-x", "A=1", "a", "--flag", ":", "-n", "2", "b", ":",
		"-np=1", "--export", "HOME", "-x", "B=2", "--", "-c", "x", ":y")
	want := []appOptions{
		{np: 1, program: "a", args: []string{"--flag"}, exports: []string{"A=1"}},
		{np: 2, program: "b", args: []string{}},
		{np: 1, program: "-c", args: []string{"x", ":y"}, exports: []string{"HOME=/home/u", "B=2"}},
	}
	if !o.output.Tag || len(o.apps) != len(want) || o.np() != 4 {
		t.Fatalf("options %+v", o)
	}
	for i, w := range want {
		a := o.apps[i]
		if a.np != w.np || a.program != w.program || !slices.Equal(a.args, w.args) || !slices.Equal(a.exports, w.exports) {
			t.Errorf("app context %d: %+v, want %+v", i+1, a, w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"prog"}, "-np N is required"},
		{[]string{"-np", "0", "prog"}, "-np 0: the number of ranks must be 1 or more"},
		{[]string{"-np", "two", "prog"}, `--np "two": want a whole number (N)`},
		{[]string{"--host", "", "prog"}, "--host is empty: want hosts such as h1,h2:4"},
		{[]string{"--hostfile=", "-np", "2", "prog"}, "--hostfile is empty: want a file's path"},
		{[]string{"-np", "2"}, "no program given"},
		{[]string{"-np", "5", "prog"}, "-np 5: this host has only 4 CPUs available; add --oversubscribe to run more ranks than CPUs"},
		{[]string{"-np", "2", "--mca", "btl", "tcp", "-mca", "btl", "self", "prog"}, "btl given twice with different values"},
		{[]string{"-np", "2", "--mca", "btl"}, "--mca needs a name and a value"},
		{[]string{"-np", "2", "--mca=btl", "prog"}, "--mca takes a name and a value"},
		{[]string{"-np", "2", "--mca", "", "5", "prog"}, `--mca "" "5": the parameter name is empty`},
		{[]string{"-np", "2", "-x", "FOO*", "prog"}, `"FOO*" is not a variable name`},
		{[]string{"-np", "2", "-x", "=v", "prog"}, `"" is not a variable name`},
		{[]string{"-np", "2", "--tune", "/nonexistent/gompi.conf", "prog"}, "--tune /nonexistent/gompi.conf: the file does not exist"},
		{[]string{"-np", "2", "--tune", os.TempDir(), "prog"}, "is a directory"},
		{[]string{"-np", "2", "--bind-to", "socket", "prog"}, `--bind-to "socket": allowed values are auto, core and none`},
		{[]string{"-np", "2", "--timeout", "-1", "prog"}, "--timeout -1"},
		{[]string{"-np", "2", "--timeout", "9223372037", "prog"}, "--timeout 9223372037: want a whole number of seconds from 0 (none) to 9223372036"},
		{[]string{"-np", "2", "--timeout", "18446744074", "prog"}, "--timeout 18446744074: want a whole number of seconds from 0 (none) to 9223372036"},
		{[]string{"-np", "2", "--report-state-wait", "0s", "prog"}, "--report-state-wait 0s: want a duration above 0 and at most 1h, such as 1s or 30s"},
		{[]string{"-np", "2", "--report-state-wait", "2h", "prog"}, "--report-state-wait 2h0m0s: want a duration above 0"},
		{[]string{"-np", "2", "--output-filename", "", "prog"}, "--output-filename: the directory name is empty"},
		{[]string{"-np", "2", "--wdir", "", "prog"}, "--wdir: the directory name is empty"},
		{[]string{"-np", "2", "--wdir", "/nonexistent/dir", "prog"}, "--wdir /nonexistent/dir: the directory does not exist"},
		{[]string{"-np", "2", "-wd", "/dev/null", "prog"}, "--wdir /dev/null: not a directory"},
		{[]string{"-np", "1", "a", ":", "-np", "1", "--wdir", "/tmp", "b"}, "app context 2: --wdir applies to the whole job"},
		{[]string{"-np", "2", "--frobnicate", "prog"}, "unknown flag: --frobnicate"},
		{[]string{"-np", "1", "a", ":"}, `app context 2: empty: each ":" must be followed by -np N and a program`},
		{[]string{":", "-np", "1", "a"}, `app context 1: empty`},
		{[]string{"-np", "1", "a", ":", "-np", "1"}, `app context 2: no program after "-np 1"`},
		{[]string{"-np", "1", "a", ":", "b"}, "app context 2: -np N is required before b"},
		{[]string{"-np", "1", "a", ":", "-np", "1", "-v", "b"}, "app context 2: -v applies to the whole job: give it before the first program"},
		{[]string{"-np", "1", "a", ":", "-np", "1", "-bind-to", "core", "b"}, "app context 2: --bind-to applies to the whole job"},
		{[]string{"-np", "1", "a", ":", "-np", "2", "b", ":", "-np", "2", "c"}, "5 ranks in all: this host has only 4 CPUs available"},
		{[]string{"-np", "1", "--mca", "btl", ":", "-np", "1", "b"}, "app context 1: --mca needs a name and a value"},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseArgs(%q) = %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}

func TestParseMCAAndTune(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.conf"), filepath.Join(dir, "b.conf")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := mustParse(t, "-np", "2", "--mca", "btl", "tcp,self", "-mca", "coll_base_verbose", "5",
		"--mca", "btl", "tcp,self", "--tune", a+","+b, "-tune", a, "prog")
	want := []params.Setting{{Name: "btl", Value: "tcp,self"}, {Name: "coll_base_verbose", Value: "5"}}
	if !slices.Equal(o.mca, want) {
		t.Fatalf("mca %+v, want %+v", o.mca, want)
	}
	if !slices.Equal(o.tune, []string{a, b, a}) {
		t.Fatalf("tune %q", o.tune)
	}
	env := rankEnv([]string{"PATH=/bin"}, o, "/opt/gompi/bin/gompirun")
	if got := env[len(env)-3]; got != params.LaunchEnv(want, []string{a, b, a}) {
		t.Fatalf("launch env %q", got)
	}
	if got := env[len(env)-2]; got != params.LaunchCheckedEnvVar+"=1" {
		t.Fatalf("env %q: the ranks are not told that gompirun checked the parameters", got)
	}
}

// TestParseExport: -x NAME=value, -x NAME of the environment, and -x NAME
// that the environment lacks, which is left out and named (the caller
// warns), in each app context.
func TestParseExport(t *testing.T) {
	var out bytes.Buffer
	o, err := parseArgs([]string{"-np", "1", "-x", "FOO=bar=baz", "-x", "UNSET_VAR", "-x", "HOME", "--export", "EMPTY=", "prog",
		":", "-np", "1", "-x", "OTHER_UNSET", "-x", "HOME", "b"},
		testHost(map[string]string{"HOME": "/home/u"}), &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"FOO=bar=baz", "HOME=/home/u", "EMPTY="}; !slices.Equal(o.apps[0].exports, want) {
		t.Fatalf("exports %q, want %q", o.apps[0].exports, want)
	}
	if !slices.Equal(o.apps[0].unset, []string{"UNSET_VAR"}) || !slices.Equal(o.apps[1].unset, []string{"OTHER_UNSET"}) ||
		!slices.Equal(o.apps[1].exports, []string{"HOME=/home/u"}) {
		t.Fatalf("app contexts %+v: want UNSET_VAR and OTHER_UNSET left out and named", o.apps)
	}
}

// TestParseWorkDir: --wdir (also -wdir and -wd) is made absolute.
func TestParseWorkDir(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--wdir", "-wdir", "-wd"} {
		o := mustParse(t, "-np", "1", flag, rel, "prog")
		if o.wdir != dir {
			t.Errorf("%s %s: wdir %q, want %q", flag, rel, o.wdir, dir)
		}
	}
}

func TestParseOtherOptions(t *testing.T) {
	o := mustParse(t, "-np", "8", "-oversubscribe", "--bind-to", "CORE", "-timeout", "5",
		"--timestamp-output", "--output-filename", "out", "-vv", "-allow-run-as-root", "prog")
	if !o.oversubscribe || o.bind != node.BindCore || o.timeout != 5*time.Second || !o.output.Timestamp || o.verbose != 2 {
		t.Fatalf("options %+v", o)
	}
	if !filepath.IsAbs(o.output.Dir) || filepath.Base(o.output.Dir) != "out" {
		t.Fatalf("output dir %q: want an absolute path ending in out", o.output.Dir)
	}
}

func TestTimeoutFromEnvironment(t *testing.T) {
	var out bytes.Buffer
	o, err := parseArgs([]string{"-np", "1", "prog"}, testHost(map[string]string{"MPIEXEC_TIMEOUT": "7"}), &out)
	if err != nil || o.timeout != 7*time.Second {
		t.Fatalf("MPIEXEC_TIMEOUT=7: %+v, %v", o, err)
	}
	if _, err := parseArgs([]string{"-np", "1", "prog"}, testHost(map[string]string{"MPIEXEC_TIMEOUT": "soon"}), &out); err == nil || !strings.Contains(err.Error(), `MPIEXEC_TIMEOUT="soon"`) {
		t.Fatalf("MPIEXEC_TIMEOUT=soon: %v", err)
	}
	for _, v := range []string{"9999999999", "18446744074"} {
		_, err := parseArgs([]string{"-np", "1", "prog"}, testHost(map[string]string{"MPIEXEC_TIMEOUT": v}), &out)
		if err == nil || !strings.Contains(err.Error(), "to 9223372036") {
			t.Errorf("MPIEXEC_TIMEOUT=%s: %v, want an error naming the maximum", v, err)
		}
	}
	o, err = parseArgs([]string{"-np", "1", "prog"}, testHost(map[string]string{"MPIEXEC_TIMEOUT": "9223372036"}), &out)
	if err != nil || o.timeout <= 0 {
		t.Fatalf("MPIEXEC_TIMEOUT=9223372036: %+v, %v", o, err)
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}} {
		var out bytes.Buffer
		o, err := parseArgs(args, testHost(nil), &out)
		if err != nil || o != nil {
			t.Fatalf("%q: %+v, %v", args, o, err)
		}
		for _, want := range []string{"--np N", "--oversubscribe", "--mca NAME VALUE", "--tune FILE", "-x, --export", "--tag-output",
			"--timestamp-output", "--output-filename DIR", "--timeout SECONDS", "--bind-to auto|core|none", "--version", "Exit status",
			"MPMD", "docs/gompirun.md"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q output lacks %q", args, want)
			}
		}
		// Usage and the options first, the explanations after them.
		if help := out.String(); !strings.HasPrefix(help, "Usage:\n  gompirun -np N") ||
			strings.Index(help, "--bind-to") > strings.Index(help, "Exit status") {
			t.Errorf("%q: the help does not start with the usage and the options:\n%s", args, help)
		}
		if n := strings.Count(out.String(), "auto|core|none"); n != 1 {
			t.Errorf("%q: the values of --bind-to are listed %d times, want once", args, n)
		}
	}
	var out bytes.Buffer
	if o, err := parseArgs([]string{"--version"}, testHost(nil), &out); err != nil || o != nil || !strings.Contains(out.String(), "version") {
		t.Fatalf("--version: %+v, %v, %q", o, err, out.String())
	}
}

func TestRankEnvPrefix(t *testing.T) {
	o := mustParse(t, "-np", "1", "prog")
	env := rankEnv([]string{"A=1"}, o, "/nonexistent/gompi/bin/gompirun")
	if !slices.Contains(env, "GOMPI_PREFIX=/nonexistent/gompi") {
		t.Fatalf("env %q lacks GOMPI_PREFIX", env)
	}
	env = rankEnv([]string{"GOMPI_PREFIX=/mine"}, o, "/nonexistent/gompi/bin/gompirun")
	if slices.Contains(env, "GOMPI_PREFIX=/nonexistent/gompi") {
		t.Fatalf("env %q overrides the user's GOMPI_PREFIX", env)
	}
}
