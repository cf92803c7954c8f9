package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// "--mca NAME prog" is explained, more precisely when NAME is a parameter.
func TestMCATookProgram(t *testing.T) {
	h := testHost(nil)
	h.isParam = func(name string) bool { return name == "btl_tcp_eager_limit" }
	var out bytes.Buffer
	_, err := parseArgs([]string{"-np", "2", "--mca", "btl_tcp_eager_limit", "prog"}, h, &out)
	want := `--mca took "prog" as the value of btl_tcp_eager_limit, and no program is left to run: ` +
		`the value of btl_tcp_eager_limit is missing; write --mca btl_tcp_eager_limit VALUE prog`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	_, err = parseArgs([]string{"-np", "2", "-mca", "nosuch", "prog"}, h, &out)
	if err == nil || !strings.Contains(err.Error(), `-mca took "prog" as the value of nosuch`) ||
		!strings.Contains(err.Error(), "takes a name and a value") {
		t.Fatalf("err = %v", err)
	}
	// A complete pair and no program is still "no program given".
	if _, err = parseArgs([]string{"-np", "2", "--mca", "btl", "tcp", "-v"}, h, &out); err == nil || !strings.Contains(err.Error(), "no program given") {
		t.Fatalf("err = %v", err)
	}
}

func TestIsParam(t *testing.T) {
	if !isParam("btl_tcp_eager_limit") || !isParam("mca_base_strict") || isParam("btl_tcp_eagr_limit") {
		t.Fatal("isParam does not know gompi's parameters")
	}
}

func TestCheckExecSize(t *testing.T) {
	lim := execLimits{maxString: 1000, maxTotal: launcherReserve + 3000}
	mca := []params.Setting{{Name: "a", Value: strings.Repeat("x", 600)}, {Name: "b", Value: strings.Repeat("y", 500)}, {Name: "c", Value: "1"}}
	launch := params.LaunchEnv(mca, nil)
	tests := []struct {
		argv, env []string
		want      string // "" for no error
	}{
		{[]string{"prog"}, []string{"A=1"}, ""},
		{[]string{"prog", strings.Repeat("z", 1000)}, nil, "an argument of the program is 1000 bytes long; the system limits one argument to 999 bytes"},
		{[]string{"prog"}, []string{"BIG=" + strings.Repeat("z", 996)}, "environment variable BIG has 1000 bytes; the system limits one environment string to 999 bytes"},
		{[]string{"prog"}, []string{launch}, fmt.Sprintf("the --mca values a (600 bytes), b (500 bytes), c (1 bytes); "+
			"gompirun passes them to the ranks together in the environment variable GOMPI_LAUNCH_MCA, which has %d bytes", len(launch))},
		{[]string{"prog"}, []string{"A=" + strings.Repeat("1", 900), "B=" + strings.Repeat("1", 900), "C=" + strings.Repeat("1", 900), "D=" + strings.Repeat("1", 900)},
			fmt.Sprintf("the ranks' arguments and environment would take %d bytes, over the system's limit of %d bytes", launcherReserve+13+4*911, launcherReserve+3000)},
	}
	for i, tt := range tests {
		err := checkExecSize(tt.argv, tt.env, mca, lim)
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%d: err = %v, want %q", i, err, tt.want)
		}
	}
}

func TestSystemExecLimits(t *testing.T) {
	lim := systemExecLimits()
	if lim.maxString != 131072 || lim.maxTotal < 131072 || lim.maxTotal > 6<<20 {
		t.Fatalf("limits %+v", lim)
	}
}

// The check reads files and values as a rank does and reports file:line.
func TestCheckParams(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, params.EnvPrefix) {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	dir := t.TempDir()
	tune := filepath.Join(dir, "t.conf")
	if err := os.WriteFile(tune, []byte("# tuned\nbtl_tcp_eager_limit = lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &log, DisableTime: true})
	env := func(mca []params.Setting, tune ...string) []string {
		return append([]string{"HOME=" + dir, params.PrefixEnvVar + "=" + dir},
			params.Launch{MCA: mca, Tune: tune, Checked: true}.Env()...)
	}
	_, err := checkParams(context.Background(), env(nil, tune), []string{"/nonexistent/prog"}, logger)
	if err == nil || !strings.Contains(err.Error(), `value "lots" from file `+tune+`:2 is not a size`) {
		t.Errorf("err = %v", err)
	}
	_, err = checkParams(context.Background(), env([]params.Setting{{Name: "btl_tcp_eagr_limit", Value: "1"}}), []string{"/nonexistent/prog"}, logger)
	if err != nil || !strings.Contains(log.String(), `unknown parameter "btl_tcp_eagr_limit" on the command line; did you mean btl_tcp_eager_limit`) {
		t.Errorf("err = %v, log %q", err, log.String())
	}
	// Parameters that disagree with each other are refused before launch.
	_, err = checkParams(context.Background(), env([]params.Setting{{Name: "btl_sm_ring_size", Value: "16k"},
		{Name: "btl_sm_eager_limit", Value: "8k"}}), []string{"/nonexistent/prog"}, logger)
	if want := "btl sm: parameters: btl_sm_eager_limit=8192 (command line) is larger than btl_sm_fragment_size=3824 " +
		"(default, lowered to fit the ring)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	// The tools whose reports gompirun merges: those selected, but for
	// one that a negative priority disables, which submits no part.
	selected := []params.Setting{{Name: "prof", Value: "stats,trace"}}
	tools, err := checkParams(context.Background(), env(selected), []string{"/nonexistent/prog"}, logger)
	if err != nil || !slices.Equal(tools, []string{"stats", "trace"}) {
		t.Errorf("tools = %v, %v; want [stats trace]", tools, err)
	}
	tools, err = checkParams(context.Background(), env(append(selected, params.Setting{Name: "prof_stats_priority", Value: "-1"})),
		[]string{"/nonexistent/prog"}, logger)
	if err != nil || !slices.Equal(tools, []string{"trace"}) {
		t.Errorf("tools with stats disabled = %v, %v; want [trace]", tools, err)
	}
}

// Component names gompirun does not know are judged by what the program
// registers, which it is asked for: this test's executable, which answers
// as a gompi program's Init does (see TestMain) and registers btl "mine"
// only when asked. That "tpc" is written in the executable changes nothing.
func TestCheckParamsAsksTheProgram(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := func(btl string) []string {
		return append([]string{"HOME=" + dir, params.PrefixEnvVar + "=" + dir},
			params.Launch{MCA: []params.Setting{{Name: "btl", Value: btl}}, Checked: true}.Env()...)
	}
	var log bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &log, DisableTime: true})
	_, err = checkParams(context.Background(), env("self,tpc"), []string{self}, logger)
	if err == nil || !strings.Contains(err.Error(), `btl: value "self,tpc" from command line: no component named "tpc" (available: mine, self, sm, tcp)`) {
		t.Errorf("tpc: err = %v, log %q", err, log.String())
	}
	if cached, _ := filepath.Glob(filepath.Join(cache, "gompi", "linked", "*.json")); len(cached) != 1 {
		t.Errorf("cached answers: %q, want one", cached)
	}
	if _, err := checkParams(context.Background(), env("self,mine"), []string{self}, logger); err != nil {
		t.Errorf("a component the program registers: err = %v, log %q", err, log.String())
	}
	// A selection from a file or the environment says where it came from.
	tune := filepath.Join(dir, "line2.conf")
	if err := os.WriteFile(tune, []byte("# tuned\nbtl = self,foo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := append([]string{"HOME=" + dir, params.PrefixEnvVar + "=" + dir}, params.Launch{Tune: []string{tune}, Checked: true}.Env()...)
	_, err = checkParams(context.Background(), fromFile, []string{self}, logger)
	if err == nil || !strings.Contains(err.Error(), `btl: value "self,foo" from file `+tune+`:2: no component named "foo"`) {
		t.Errorf("from a file: err = %v", err)
	}
	t.Setenv("GOMPI_MCA_btl", "self,foo")
	_, err = checkParams(context.Background(), []string{"HOME=" + dir, params.PrefixEnvVar + "=" + dir}, []string{self}, logger)
	if err == nil || !strings.Contains(err.Error(), `btl: value "self,foo" from environment GOMPI_MCA_btl: no component named "foo"`) {
		t.Errorf("from the environment: err = %v", err)
	}
	os.Unsetenv("GOMPI_MCA_btl")
	// An exclude list leaves a component only if the program has one more.
	if _, err := checkParams(context.Background(), env("^self,sm,tcp"), []string{self}, logger); err != nil {
		t.Errorf("an exclude list that leaves the program's own: err = %v", err)
	}
	_, err = checkParams(context.Background(), env("^self,sm,tcp,mine"), []string{self}, logger)
	if err == nil || !strings.Contains(err.Error(), `btl: value "^self,sm,tcp,mine" from command line excludes every component (available: mine, self, sm, tcp): nothing is left to select`) {
		t.Errorf("an exclude list of every component: err = %v", err)
	}
	// A program that is not a gompi one cannot be asked: its ranks judge.
	if _, err := checkParams(context.Background(), env("self,tpc"), []string{"/bin/sh", "-c", "exit 3"}, logger); err != nil {
		t.Errorf("a program that is not Go: err = %v", err)
	}
}

// TestMain answers mca.LinkedQueryEnvVar as a gompi program's Init does,
// with one component more than the test itself links.
func TestMain(m *testing.M) {
	if os.Getenv(mca.LinkedQueryEnvVar) != "" {
		mca.Register(mca.Info{Framework: "btl", Name: "mine", New: func() mca.Component { return nil }})
		err := pmpi.Real().Init() // answers and exits
		fmt.Fprintln(os.Stderr, "Init returned:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
