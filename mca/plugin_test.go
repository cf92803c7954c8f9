package mca

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/internal/testlog"
	"github.com/gompi/gompi/params"
)

// pluginComponent is the test framework's host side of a plugin. Like a
// framework's base, testBase puts the MCA base one level deeper than the
// Plugin, whose lifecycle methods win.
type pluginComponent struct {
	testBase
	*Plugin
}

type testBase struct{ BaseComponent }

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// testPlugins builds the test plugins once (or takes make test's builds)
// into a directory of their own.
func testPlugins(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "gompi-mca-plugins-")
		if buildErr != nil {
			return
		}
		_, buildErr = jobtest.Build(buildDir, map[string]string{"mca_test_echo": "./testdata/echo", "mca_test_future": "./testdata/future"})
	})
	if buildErr != nil {
		t.Fatalf("building test plugins: %v", buildErr)
	}
	return buildDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// pluginRegistry is a registry whose test framework takes plugins.
func pluginRegistry() *Registry {
	reg := NewRegistry()
	reg.RegisterFramework(FrameworkSpec{
		Name: testFW, Version: Version{2, 1, 0},
		Plugin: func(p *Plugin) Component { return &pluginComponent{Plugin: p} },
	})
	return reg
}

// pathDir returns a directory holding links to the named test plugins.
func pathDir(t *testing.T, names ...string) string {
	dir := t.TempDir()
	src := testPlugins(t)
	for _, n := range names {
		if err := os.Symlink(filepath.Join(src, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadPlugins(t *testing.T, reg *Registry, logs *testlog.Buffer, settings ...params.Setting) (*System, *Framework, error) {
	t.Helper()
	sys, err := Load(Options{Registry: reg, Logger: quietLogger(logs)}, params.Inputs{CommandLine: settings})
	if err != nil {
		return nil, nil, err
	}
	f, err := sys.Framework(testFW)
	if err != nil {
		t.Fatal(err)
	}
	return sys, f, nil
}

func info(f *Framework, name string) (ComponentInfo, bool) {
	for _, c := range f.Components() {
		if c.Name == name {
			return c, true
		}
	}
	return ComponentInfo{}, false
}

func TestPluginIsListedWithItsParameters(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs, params.Setting{Name: "mca_base_component_path", Value: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	c, ok := info(f, "echo")
	if !ok {
		t.Fatalf("echo not listed; components %v; log:\n%s", f.Components(), logs.String())
	}
	if c.Origin != filepath.Join(dir, "mca_test_echo") || c.Version != (Version{1, 2, 0}) || c.Refused != nil {
		t.Errorf("echo listed as %+v", c)
	}
	d, ok := sys.Params().Lookup("test_echo_crash")
	if !ok || d.Kind != params.KindEnum || len(d.Values) != 3 || d.Help != "Exit abruptly at this step" {
		t.Errorf("test_echo_crash registered as %+v (found %v)", d, ok)
	}
	if _, ok := sys.Params().Lookup("test_echo_priority"); !ok {
		t.Error("the framework's priority parameter is not registered for the plugin")
	}
}

func TestPluginRunsTheLifecycleWithItsParameters(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	t.Setenv("GOMPI_MCA_test_echo_decline", "false") // a value from the environment reaches the plugin too
	for _, tt := range []struct {
		name     string
		settings []params.Setting
		env      string
		want     int
	}{
		{"default", nil, "", 7},
		{"command line", []params.Setting{{Name: "test_echo_answer", Value: "42"}}, "", 42},
		{"environment", nil, "17", 17},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("GOMPI_MCA_test_echo_answer", tt.env)
			}
			var logs testlog.Buffer
			settings := append([]params.Setting{{Name: "mca_base_component_path", Value: dir}}, tt.settings...)
			sys, f, err := loadPlugins(t, pluginRegistry(), &logs, settings...)
			if err != nil {
				t.Fatal(err)
			}
			defer sys.Close()
			if err := f.Open(context.Background()); err != nil {
				t.Fatalf("open: %v\n%s", err, logs.String())
			}
			sel, err := f.Select(context.Background())
			if err != nil {
				t.Fatalf("select: %v\n%s", err, logs.String())
			}
			if len(sel) != 1 || sel[0].Name != "echo" || sel[0].Priority != tt.want {
				t.Fatalf("selected %+v, want echo at priority %d\n%s", sel, tt.want, logs.String())
			}
			p := sel[0].Component.(*pluginComponent)
			if p.Conn() == nil {
				t.Fatal("no connection to the running plugin")
			}
			if err := f.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if p.Conn() != nil {
				t.Error("still connected after close")
			}
		})
	}
}

func TestPluginFailuresNameThePluginAndItsStderr(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	exe := filepath.Join(dir, "mca_test_echo")
	for _, tt := range []struct {
		name     string
		settings []params.Setting
		say      []string // in the error when requested, in the log otherwise
	}{
		{"fails", []params.Setting{{Name: "test_echo_fail", Value: "no disk"}}, []string{exe, "open", "echo: no disk"}},
		{"crashes in open", []params.Setting{{Name: "test_echo_crash", Value: "open"}},
			[]string{exe, "open", "crashing in open as asked"}},
		{"crashes in query", []params.Setting{{Name: "test_echo_crash", Value: "query"}},
			[]string{exe, "query", "crashing in query as asked"}},
	} {
		for _, requested := range []bool{false, true} {
			name := tt.name
			if requested {
				name += ", requested"
			}
			t.Run(name, func(t *testing.T) {
				var logs testlog.Buffer
				settings := append([]params.Setting{{Name: "mca_base_component_path", Value: dir}}, tt.settings...)
				if requested {
					settings = append(settings, params.Setting{Name: testFW, Value: "echo"})
				}
				sys, f, err := loadPlugins(t, pluginRegistry(), &logs, settings...)
				if err != nil {
					t.Fatal(err)
				}
				defer sys.Close()
				err = f.Open(context.Background())
				if err == nil {
					_, err = f.Select(context.Background())
				}
				got := logs.String()
				if requested {
					if !errors.Is(err, ErrComponentFailed) || !errors.Is(err, ErrPlugin) {
						t.Fatalf("error %v, want ErrComponentFailed and ErrPlugin", err)
					}
					got = err.Error()
					// Named once, by the framework; the sentinels add no text.
					if !strings.HasPrefix(got, testFW+" echo: ") || strings.Count(got, testFW+" echo") != 1 ||
						strings.Contains(got, ErrPlugin.Error()) || strings.Contains(got, ErrFatal.Error()) {
						t.Errorf("error %q, want it to start with %q, naming the component once, with no sentinel text", got, testFW+" echo: ")
					}
				} else if err != nil {
					t.Fatalf("an unrequested plugin's failure stopped the framework: %v", err)
				}
				for _, s := range tt.say {
					if !strings.Contains(got, s) {
						t.Errorf("%q missing from:\n%s", s, got)
					}
				}
			})
		}
	}
}

func TestPluginDeclines(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs,
		params.Setting{Name: "mca_base_component_path", Value: dir},
		params.Setting{Name: "test_echo_decline", Value: "yes"},
		params.Setting{Name: "mca_base_verbose", Value: "debug"},
		params.Setting{Name: "test_base_verbose", Value: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if err := f.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	sel, err := f.Select(context.Background())
	if err != nil || len(sel) != 0 {
		t.Fatalf("selected %v, %v; want none", sel, err)
	}
	if !strings.Contains(logs.String(), "asked to decline") {
		t.Errorf("decline not logged:\n%s", logs.String())
	}
}

func TestPluginOfAnotherVersionIsRefused(t *testing.T) {
	dir := pathDir(t, "mca_test_future")
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs, params.Setting{Name: "mca_base_component_path", Value: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	c, ok := info(f, "future")
	if !ok {
		t.Fatalf("the refused plugin is not listed:\n%s", logs.String())
	}
	if !errors.Is(c.Refused, ErrVersion) {
		t.Fatalf("refusal %v, want ErrVersion", c.Refused)
	}
	for _, s := range []string{"Plugin version: 2", "this program's 1", filepath.Join(dir, "mca_test_future")} {
		if !strings.Contains(c.Refused.Error(), s) {
			t.Errorf("%q missing from the refusal: %v", s, c.Refused)
		}
	}
	// Asked for by name, the refusal stops the framework.
	_, err = Load(Options{Registry: pluginRegistry(), Logger: quietLogger(&logs)}, params.Inputs{CommandLine: []params.Setting{
		{Name: "mca_base_component_path", Value: dir}, {Name: testFW, Value: "future"}}})
	if !errors.Is(err, ErrComponentFailed) || !errors.Is(err, ErrVersion) {
		t.Errorf("requested refused plugin: %v", err)
	}
}

func TestComponentPathSkipsWhatIsNotAPlugin(t *testing.T) {
	first, second := pathDir(t, "mca_test_echo"), pathDir(t, "mca_test_echo")
	for name, content := range map[string]string{
		"mca_test_Bad":   "#!/bin/sh\n",
		"mca_nofw":       "#!/bin/sh\n",
		"mca_other_tool": "#!/bin/sh\n", // no framework "other"
		"README":         "not a component\n",
	} {
		if err := os.WriteFile(filepath.Join(first, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(first, "mca_test_plain"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	reg := pluginRegistry()
	sys, f, err := loadPlugins(t, reg, &logs,
		params.Setting{Name: "mca_base_component_path", Value: first + ":" + second},
		params.Setting{Name: "mca_base_verbose", Value: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if c, _ := info(f, "echo"); c.Origin != filepath.Join(first, "mca_test_echo") {
		t.Errorf("echo comes from %q, want the first directory", c.Origin)
	}
	for _, s := range []string{
		"mca_test_Bad: the name does not fit",
		"mca_nofw: the name does not fit",
		"mca_other_tool: there is no other framework",
		"mca_test_plain: not an executable file",
		filepath.Join(second, "mca_test_echo") + ": " + filepath.Join(first, "mca_test_echo") + " comes first",
	} {
		if !strings.Contains(logs.String(), s) {
			t.Errorf("%q not in the log:\n%s", s, logs.String())
		}
	}
	if strings.Contains(logs.String(), "README") {
		t.Error("a file not named mca_* was noted")
	}
}

func TestBuiltInComponentBeatsPlugin(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	rec := &recorder{}
	reg := pluginRegistry()
	reg.Register(testInfo(testFW, "echo", func() Component { return &recComponent{rec: rec} }))
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, reg, &logs,
		params.Setting{Name: "mca_base_component_path", Value: dir},
		params.Setting{Name: "mca_base_verbose", Value: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if c, _ := info(f, "echo"); c.Origin != OriginStatic {
		t.Errorf("echo comes from %q, want the built-in one", c.Origin)
	}
	if !strings.Contains(logs.String(), "the built-in mca_test_echo component of the same name wins") {
		t.Errorf("no note about the skipped plugin:\n%s", logs.String())
	}
}

func TestJunkExecutableIsRefusedWithItsOutput(t *testing.T) {
	dir := t.TempDir()
	// stderr first: the host stops the process as soon as it reads junk.
	script := "#!/bin/sh\necho 'oops on stderr' >&2\necho 'something else entirely'\nexit 4\n"
	if err := os.WriteFile(filepath.Join(dir, "mca_test_junk"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs, params.Setting{Name: "mca_base_component_path", Value: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	c, _ := info(f, "junk")
	if !errors.Is(c.Refused, ErrPlugin) {
		t.Fatalf("junk: refusal %v, want ErrPlugin", c.Refused)
	}
	for _, s := range []string{filepath.Join(dir, "mca_test_junk"), "oops on stderr"} {
		if !strings.Contains(c.Refused.Error(), s) {
			t.Errorf("%q missing from %v", s, c.Refused)
		}
	}
}

func TestPluginLogsReachTheHostWithTheirLevels(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the plugin's socket directory goes
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs,
		params.Setting{Name: "mca_base_component_path", Value: dir},
		params.Setting{Name: "test_base_verbose", Value: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if err := f.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Select(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got := logs.String()
	// The plugin's record, at its level; go-plugin re-logs its fields in
	// no fixed order.
	if !regexp.MustCompile(`(?m)^.*\[INFO\]  gompi\.test\.echo\.mca_test_echo: opened: .*answer=7`).MatchString(got) {
		t.Errorf("the plugin's info record is not in the host's log:\n%s", got)
	}
	if !strings.Contains(got, "a stray line on stdout before Serve") { // printed before Serve: logged, not fatal
		t.Errorf("the plugin's stray stdout line is not in the host's log:\n%s", got)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in the temporary directory: %v", left)
	}
}

// A host that dies, however it dies, takes its plugins with it. The test
// runs itself as the host, kills it with SIGKILL and waits for the plugin
// to go.
func TestPluginDoesNotOutliveItsHost(t *testing.T) {
	if os.Getenv("GOMPI_TEST_PLUGIN_HOST") != "" {
		runPluginHost()
		return
	}
	dir := pathDir(t, "mca_test_echo")
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPluginDoesNotOutliveItsHost$")
	cmd.Env = append(os.Environ(), "GOMPI_TEST_PLUGIN_HOST="+dir, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil || pid <= 0 {
		_ = cmd.Process.Kill()
		t.Fatalf("host did not report its plugin's pid: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// A hang guard, not a timing assertion: the plugin reads end of file on
	// its lifeline at once, but a loaded machine may take a while to run it.
	deadline := time.Now().Add(30 * time.Second)
	for jobtest.Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("plugin %d still runs 30 s after its host was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in the temporary directory: %v", left)
	}
}

// runPluginHost opens the echo plugin, prints its pid and waits to be killed.
func runPluginHost() {
	reg := pluginRegistry()
	sys, err := Load(Options{Registry: reg, Logger: hclog.NewNullLogger()}, params.Inputs{CommandLine: []params.Setting{
		{Name: "mca_base_component_path", Value: os.Getenv("GOMPI_TEST_PLUGIN_HOST")}}})
	if err != nil {
		fmt.Println(-1)
		os.Exit(1)
	}
	f, _ := sys.Framework(testFW)
	if err := f.Open(context.Background()); err != nil {
		fmt.Println(-1)
		os.Exit(1)
	}
	sel, err := f.Select(context.Background())
	if err != nil || len(sel) != 1 {
		fmt.Println(-1)
		os.Exit(1)
	}
	fmt.Println(sel[0].Component.(*pluginComponent).pid())
	select {}
}

func TestPluginThatHangsInDescribeIsRefusedInPlainWords(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	t.Setenv("GOMPI_TEST_ECHO_HANG", "describe")
	// The host's own limit is a minute; a caller's shorter deadline rules,
	// less the time the plugin took to start.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	path := filepath.Join(dir, "mca_test_echo")
	_, err := describePlugin(ctx, path, hclog.NewNullLogger())
	if !errors.Is(err, ErrPlugin) {
		t.Fatalf("refusal %v, want ErrPlugin", err)
	}
	want := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `: describe: no answer within (0|0\.\d|1)s ` +
		regexp.QuoteMeta("(a plugin must answer each call of the host; is it stuck?)"))
	if got := err.Error(); !want.MatchString(got) || strings.Contains(got, "rpc error") {
		t.Errorf("refusal %q, want it to match %q and leave gRPC's words out", got, want)
	}
}

// A panic in Open reaches the log once, in the framework's report, and not
// also line by line as the plugin's stderr or in a record of the Plugin's.
func TestPluginPanicIsReportedOnce(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, pluginRegistry(), &logs,
		params.Setting{Name: "mca_base_component_path", Value: dir},
		params.Setting{Name: "test_echo_crash", Value: "open"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if err := f.Open(context.Background()); err != nil {
		t.Fatalf("an unrequested plugin's failure stopped the framework: %v", err)
	}
	got := logs.String()
	for _, s := range []string{"crashing in open as asked", "[running]:"} {
		if n := strings.Count(got, s); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", s, n, got)
		}
	}
	// go-plugin's own record of the exit is folded into the report.
	if strings.Contains(got, "[ERROR]") || !strings.Contains(got, "the plugin process is gone (exit status 2)") {
		t.Errorf("want one warning, saying how the process ended:\n%s", got)
	}
}

// A refusal is one line up to the plugin's stderr lines, says so when there
// are none, and names the executable whatever the step.
func TestPluginRefusalsNameTheExecutableOnOneLine(t *testing.T) {
	dir := pathDir(t, "mca_test_echo")
	for name, script := range map[string]string{
		"mca_test_broken": "#!/bin/sh\necho 'broken: missing libfoo' >&2\nexit 1\n",
		"mca_test_silent": "#!/bin/sh\nexit 1\n",
		// Its stderr line comes after its junk on stdout, once its
		// lifeline ends: a host that kills it at once loses the line.
		"mca_test_junk": "#!/bin/sh\necho junk\nread x <&3\necho 'junk: bad config' >&2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "mca_test_echo"), filepath.Join(dir, "mca_test_other")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mca_test_data"), []byte("not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A framework at API 3 refuses echo, built for 2, once it has described itself.
	reg := NewRegistry()
	reg.RegisterFramework(FrameworkSpec{
		Name: testFW, Version: Version{3, 0, 0},
		Plugin: func(p *Plugin) Component { return &pluginComponent{Plugin: p} },
	})
	var logs testlog.Buffer
	sys, f, err := loadPlugins(t, reg, &logs, params.Setting{Name: "mca_base_component_path", Value: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	noHandshake := "start: it exited, or closed its stdout, before writing its handshake line there: " +
		"it is not a gompi plugin, or it failed before its handshake"
	for name, want := range map[string]string{
		"broken": filepath.Join(dir, "mca_test_broken") + ": " + noHandshake + "; its last lines on stderr:\n  broken: missing libfoo",
		"silent": filepath.Join(dir, "mca_test_silent") + ": " + noHandshake + "; it wrote nothing on stderr",
		"junk": filepath.Join(dir, "mca_test_junk") + ": start: Unrecognized remote plugin message: junk: " +
			"it is not a gompi plugin, or it wrote to stdout before its handshake; its last lines on stderr:\n  junk: bad config",
		"data": filepath.Join(dir, "mca_test_data") + ": start: fork/exec " + filepath.Join(dir, "mca_test_data") + ": exec format error",
		"other": filepath.Join(dir, "mca_test_other") + ": describe: it describes itself as mca_test_echo; " +
			"a plugin's executable must be named after its component",
		"echo": filepath.Join(dir, "mca_test_echo") + ": describe: incompatible component version: " +
			"built for test framework API 2.0.0, this program has 3.0.0 (major versions must match)",
	} {
		c, ok := info(f, name)
		if !ok || c.Refused == nil {
			t.Errorf("%s: not refused: %+v", name, c)
			continue
		}
		if got := c.Refused.Error(); got != want {
			t.Errorf("%s: refusal\n%q, want\n%q", name, got, want)
		}
	}

	// At debug level go-plugin's record of its socket is on stderr too, but
	// it says nothing of the plugin.
	sys, f, err = loadPlugins(t, pluginRegistry(), &logs,
		params.Setting{Name: "mca_base_component_path", Value: dir},
		params.Setting{Name: "test_base_verbose", Value: "debug"},
		params.Setting{Name: "test_echo_fail", Value: "no disk"},
		params.Setting{Name: testFW, Value: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	err = f.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "open: echo: no disk; its last lines on stderr:") ||
		strings.Contains(err.Error(), "plugin address") {
		t.Errorf("open: %v, want the failure with the plugin's stderr lines and not go-plugin's socket", err)
	}
}
