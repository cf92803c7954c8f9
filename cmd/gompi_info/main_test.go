package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
)

var binary string

// TestMain builds gompi_info once (or takes make test's build); the tests
// run it as a separate process, as a user would, with a controlled home,
// prefix and environment.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gompi_info_test")
	if err != nil {
		panic(err)
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompi_info": "../gompi_info"})
	if err != nil {
		panic(err)
	}
	binary = bins["gompi_info"]
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// runInfo runs gompi_info with a fresh HOME and GOMPI_PREFIX and only the
// given GOMPI_MCA_ variables.
func runInfo(t *testing.T, env map[string]string, files map[string]string, args ...string) result {
	t.Helper()
	home, prefix := t.TempDir(), t.TempDir()
	for rel, body := range files {
		path := filepath.Join(home, rel)
		if strings.HasPrefix(rel, "prefix/") {
			path = filepath.Join(prefix, strings.TrimPrefix(rel, "prefix/"))
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"HOME=" + home, "GOMPI_PREFIX=" + prefix, "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// parsed returns the value of one parsable record prefix, e.g.
// "mca:btl:base:param:btl_base_verbose:source".
func parsed(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, prefix+":"); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return v
		}
	}
	t.Fatalf("no record %q in:\n%s", prefix, out)
	return ""
}

// A component that does not run says why, under the same label as those
// that do: not selected (an include list, or the empty list of the opt-in
// prof) or excluded (a ^ list).
func TestComponentStatus(t *testing.T) {
	tests := []struct {
		args  []string
		want  []string
		field string // the parsable status record of prof stats
	}{
		{nil, []string{
			"MCA btl: sm (MCA v1.0.0, API v1.0.0, Component v1.0.0, static)\n",
			"MCA prof: stats (MCA v1.0.0, API v1.1.0, Component v1.0.0, static) not selected: --mca prof stats runs it\n",
		}, "mca:prof:stats:status:unselected"},
		{[]string{"--mca", "btl", "^sm", "--mca", "prof", "trace"}, []string{
			`MCA btl: sm (MCA v1.0.0, API v1.0.0, Component v1.0.0, static) excluded: the btl parameter is "^sm"` + "\n",
			`MCA prof: stats (MCA v1.0.0, API v1.1.0, Component v1.0.0, static) not selected: the prof parameter is "trace"` + "\n",
			"MCA prof: trace (MCA v1.0.0, API v1.1.0, Component v1.0.0, static)\n",
		}, "mca:prof:stats:status:unselected"},
		{[]string{"--mca", "prof", "^trace"}, []string{
			`MCA prof: trace (MCA v1.0.0, API v1.1.0, Component v1.0.0, static) excluded: the prof parameter is "^trace"` + "\n",
		}, "mca:prof:stats:status:available"},
	}
	for _, tt := range tests {
		r := runInfo(t, nil, nil, tt.args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d: %s", tt.args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "(-)") {
			t.Errorf("%q: a label with (-):\n%s", tt.args, r.stdout)
		}
		for _, want := range tt.want {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%q: output lacks %q:\n%s", tt.args, want, r.stdout)
			}
		}
		p := runInfo(t, nil, nil, append([]string{"--parsable"}, tt.args...)...)
		if !strings.Contains(p.stdout, tt.field+"\n") {
			t.Errorf("%q --parsable lacks %q:\n%s", tt.args, tt.field, p.stdout)
		}
	}
}

func TestListsFrameworks(t *testing.T) {
	r := runInfo(t, nil, nil)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"Package: gompi", "MCA version: v1.0.0", "MCA framework: btl (API v1.0.0)",
		"MCA framework: coll", "MCA framework: prof"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "parameter \"") {
		t.Errorf("parameters listed without --param or --all:\n%s", r.stdout)
	}
}

// TestPrecedenceAndSource sets btl_base_verbose in each layer and checks the
// value gompi_info reports and the source it names.
func TestPrecedenceAndSource(t *testing.T) {
	const rec = "mca:btl:base:param:btl_base_verbose"
	userFile := ".gompi/mca-params.conf"
	tests := []struct {
		name   string
		env    map[string]string
		files  map[string]string
		args   []string
		value  string
		source string
	}{
		{"default", nil, nil, nil, "warn", "default"},
		{"system file", nil, map[string]string{"prefix/etc/gompi-mca-params.conf": "btl_base_verbose = info\n"},
			nil, "info", "file " + "PREFIX/etc/gompi-mca-params.conf:1"},
		{"user file over system file", nil, map[string]string{
			"prefix/etc/gompi-mca-params.conf": "btl_base_verbose = info\n",
			userFile:                           "# mine\nbtl_base_verbose = debug # trailing\n"},
			nil, "debug", "file HOME/.gompi/mca-params.conf:2"},
		{"env over file", map[string]string{"GOMPI_MCA_btl_base_verbose": "trace"},
			map[string]string{userFile: "btl_base_verbose = debug\n"}, nil, "trace", "environment GOMPI_MCA_btl_base_verbose"},
		{"flag over env", map[string]string{"GOMPI_MCA_btl_base_verbose": "trace"}, nil,
			[]string{"--mca", "btl_base_verbose", "error"}, "error", "command line"},
		{"override over flag", nil, map[string]string{"prefix/etc/gompi-mca-params-override.conf": "btl_base_verbose = none\n"},
			[]string{"--mca", "btl_base_verbose", "error"}, "none", "override file PREFIX/etc/gompi-mca-params-override.conf:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--param", "btl", "base", "--level", "9", "--parsable"}, tt.args...)
			r := runInfo(t, tt.env, tt.files, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := parsed(t, r.stdout, rec+":value"); got != tt.value {
				t.Errorf("value %q, want %q", got, tt.value)
			}
			src := parsed(t, r.stdout, rec+":source")
			// The temporary directories differ per run: compare their tails.
			want := tt.source
			if strings.Contains(want, "PREFIX/") || strings.Contains(want, "HOME/") {
				tail := want[strings.Index(want, "/"):]
				if !strings.Contains(src, tail) || !strings.HasPrefix(src, strings.Fields(want)[0]) {
					t.Errorf("source %q, want %q", src, want)
				}
			} else if src != want {
				t.Errorf("source %q, want %q", src, want)
			}
		})
	}
}

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		say  []string
	}{
		{"bad value", map[string]string{"GOMPI_MCA_mca_base_strict": "maybe"}, nil,
			[]string{"mca_base_strict", `"maybe"`, "GOMPI_MCA_mca_base_strict", "true, false"}},
		{"unknown include", nil, []string{"--mca", "btl", "nosuch"}, []string{`no component named "nosuch"`, "available"}},
		{"bad selection", nil, []string{"--mca", "coll", "a,^b"}, []string{"'^' may only start the list"}},
		{"unknown framework", nil, []string{"--param", "nope", "all"}, []string{`unknown framework "nope"`, "btl, coll, ess, mca, mpi, plm, prof"}},
		{"unknown component", nil, []string{"--param", "btl", "nope"}, []string{`unknown component "nope"`, "all, base"}},
		{"param without component", nil, []string{"--param", "btl"}, []string{"--param needs a framework and a component, as in --param btl tcp"}},
		{"level", nil, []string{"--level", "12"}, []string{"from 1 to 9"}},
		{"duplicate mca", nil, []string{"--mca", "btl", "a", "--mca", "btl", "b"}, []string{"given twice"}},
		{"strict unknown", map[string]string{"GOMPI_MCA_mca_base_strict": "1", "GOMPI_MCA_btl_bse_verbose": "3"}, nil,
			[]string{"btl_bse_verbose", "did you mean btl_base_verbose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runInfo(t, tt.env, nil, tt.args...)
			if r.code == 0 {
				t.Fatalf("exit 0, want failure; stdout:\n%s", r.stdout)
			}
			for _, s := range tt.say {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
		})
	}
}

func TestMPILayerParameters(t *testing.T) {
	r := runInfo(t, nil, nil, "--param", "mpi", "all", "--level", "9", "--parsable")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := parsed(t, r.stdout, "mca:mpi:base:param:mpi_yield_when_idle:value"); got != "auto" {
		t.Errorf("mpi_yield_when_idle = %q, want auto", got)
	}
}

func TestUnknownNameWarns(t *testing.T) {
	r := runInfo(t, map[string]string{"GOMPI_MCA_btl_bse_verbose": "3"}, nil)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `unknown parameter "btl_bse_verbose"`) || !strings.Contains(r.stderr, "did you mean btl_base_verbose") {
		t.Errorf("no warning with a suggestion:\n%s", r.stderr)
	}
}

func TestLevelsAndFormats(t *testing.T) {
	low := runInfo(t, nil, nil, "--param", "all", "all", "--parsable")
	all := runInfo(t, nil, nil, "--all", "--parsable")
	if strings.Contains(low.stdout, "param:btl_base_verbose:") {
		t.Errorf("level 3 parameter shown at level 1")
	}
	if !strings.Contains(all.stdout, "param:btl_base_verbose:level:3") {
		t.Errorf("--all lacks btl_base_verbose:\n%s", all.stdout)
	}
	known := map[string]bool{"package": true, "version": true, "framework": true, "mca": true}
	for _, line := range strings.Split(strings.TrimSpace(all.stdout), "\n") {
		fields := strings.Split(line, ":")
		if len(fields) < 3 || !known[fields[0]] {
			t.Errorf("malformed parsable record %q", line)
		}
	}

	j := runInfo(t, nil, nil, "--all", "--json")
	var rep report
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, j.stdout)
	}
	if len(rep.Frameworks) != 5 || len(rep.Parameters) == 0 {
		t.Errorf("json report has %d frameworks and %d parameters", len(rep.Frameworks), len(rep.Parameters))
	}
	for _, p := range rep.Parameters {
		if p.Source == "" || p.Type == "" || p.Help == "" || p.Allowed == "" {
			t.Errorf("parameter %s lacks a field: %+v", p.Name, p)
		}
	}
}

// TestHiddenByLevel: a --param query whose parameters all lie above the
// level says so, instead of printing nothing.
func TestHiddenByLevel(t *testing.T) {
	low := runInfo(t, nil, nil, "--param", "prof", "all")
	if low.code != 0 || strings.Contains(low.stdout, "parameter \"prof_stats_output\"") {
		t.Fatalf("level 1 listed prof_stats_output (exit %d):\n%s", low.code, low.stdout)
	}
	m := regexp.MustCompile(`\((\d+) more matching parameters above level 1: add --level (\d) to list them\)`).FindStringSubmatch(low.stdout)
	if m == nil {
		t.Fatalf("no note on the hidden parameters:\n%s", low.stdout)
	}
	high := runInfo(t, nil, nil, "--param", "prof", "all", "--level", m[2])
	if n := strings.Count(high.stdout, "MCA prof "); strconv.Itoa(n) != m[1] {
		t.Errorf("--level %s lists %d parameters, the note said %s:\n%s", m[2], n, m[1], high.stdout)
	}
	if strings.Contains(high.stdout, "more matching") {
		t.Errorf("a note at the level that shows everything:\n%s", high.stdout)
	}
}

// TestProfStack: the prof framework is opt-in, and its selection is the
// order of the stack, outermost first.
func TestProfStack(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string // text form
		rec  string // parsable record
	}{
		{nil, nil, "MCA prof stack: (none", "framework:prof:stack"},
		{nil, []string{"--mca", "prof", "trace,stats"}, "MCA prof stack: trace, stats (outermost first)", "framework:prof:stack:trace:stats"},
		{map[string]string{"GOMPI_MCA_prof": "stats"}, nil, "MCA prof stack: stats (outermost first)", "framework:prof:stack:stats"},
	} {
		r := runInfo(t, tc.env, nil, tc.args...)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("gompi_info %v (env %v): exit %d, want %q in:\n%s%s", tc.args, tc.env, r.code, tc.want, r.stdout, r.stderr)
		}
		p := runInfo(t, tc.env, nil, append(tc.args, "--parsable")...)
		if !slices.Contains(strings.Split(p.stdout, "\n"), tc.rec) {
			t.Errorf("gompi_info %v --parsable lacks the record %q:\n%s", tc.args, tc.rec, p.stdout)
		}
	}
}

// A plugin that could not be described has no versions: every format says
// so instead of printing 0.0.0.
func TestUndescribedPluginHasNoVersions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mca_coll_junk"), []byte("#!/bin/sh\necho junk\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GOMPI_MCA_mca_base_component_path": dir}
	r := runInfo(t, env, nil)
	if want := "MCA coll: junk (versions unknown, plugin " + filepath.Join(dir, "mca_coll_junk") + ") refused: "; !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, r.stdout)
	}
	p := runInfo(t, env, nil, "--parsable")
	for _, which := range []string{"component", "model", "api"} {
		if got := parsed(t, p.stdout, "mca:coll:junk:version:"+which); got != "unknown" {
			t.Errorf("the %s version is %q, want unknown", which, got)
		}
	}
	j := runInfo(t, env, nil, "--json")
	var rep struct {
		Frameworks []struct {
			Name       string           `json:"name"`
			Components []map[string]any `json:"components"`
		} `json:"frameworks"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, j.stdout)
	}
	found := false
	for _, f := range rep.Frameworks {
		for _, c := range f.Components {
			if f.Name != "coll" || c["name"] != "junk" {
				continue
			}
			found = true
			for _, k := range []string{"version", "model_version", "api_version"} {
				if v, ok := c[k]; ok {
					t.Errorf("junk's %s is %v, want it left out", k, v)
				}
			}
		}
	}
	if !found {
		t.Errorf("coll junk is not in the JSON:\n%s", j.stdout)
	}
}
