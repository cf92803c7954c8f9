package mca

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/testlog"
	"github.com/gompi/gompi/params"
)

const testFW = "test"

// recorder collects lifecycle events from every test component in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// behaviour says how a recording component acts in each step.
type behaviour struct {
	openErr  error
	queryErr error
	priority int
}

// recComponent records every lifecycle hook it receives.
type recComponent struct {
	BaseComponent
	rec *recorder
	how behaviour
}

func (c *recComponent) RegisterParams(r *params.Registrar) error {
	c.rec.add("register %s", c.ComponentName)
	r.String(params.Spec{Name: "note", Help: "A note for tests.", Level: 9})
	return nil
}

func (c *recComponent) Open(_ context.Context, env *Env) error {
	c.rec.add("open %s", c.ComponentName)
	return c.how.openErr
}

func (c *recComponent) Query(_ context.Context, env *Env) (int, error) {
	c.rec.add("query %s", c.ComponentName)
	if c.how.queryErr != nil {
		return 0, c.how.queryErr
	}
	return env.Priority, nil
}

func (c *recComponent) Close() error {
	c.rec.add("close %s", c.ComponentName)
	return nil
}

// testRegistry builds a registry with the test framework and one recording
// component per entry of hows.
func testRegistry(rec *recorder, hows map[string]behaviour) *Registry {
	reg := NewRegistry()
	reg.RegisterFramework(FrameworkSpec{Name: testFW, Version: Version{2, 1, 0}, Description: "test framework"})
	for name, how := range hows {
		info := testInfo(testFW, name, func() Component { return &recComponent{rec: rec, how: how} })
		info.DefaultPriority = how.priority
		reg.Register(info)
	}
	return reg
}

func quietLogger(buf *testlog.Buffer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "gompi", Output: buf, IndependentLevels: true})
}

func loadTest(t *testing.T, reg *Registry, buf *testlog.Buffer) (*System, *Framework) {
	t.Helper()
	sys, err := Load(Options{Registry: reg, Logger: quietLogger(buf)}, params.Inputs{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	f, err := sys.Framework(testFW)
	if err != nil {
		t.Fatal(err)
	}
	return sys, f
}

func TestLifecycleOrder(t *testing.T) {
	rec := &recorder{}
	declined := fmt.Errorf("no hardware: %w", ErrDeclined)
	reg := testRegistry(rec, map[string]behaviour{
		"alpha":   {priority: 10},
		"beta":    {priority: 50, queryErr: declined},
		"gamma":   {priority: 40, openErr: errors.New("socket: permission denied")},
		"delta":   {priority: 30},
		"epsilon": {priority: 20, openErr: declined},
	})
	var logs testlog.Buffer
	sys, f := loadTest(t, reg, &logs)
	if err := f.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	sel, err := f.Select(context.Background())
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	var got []string
	for _, s := range sel {
		got = append(got, fmt.Sprintf("%s:%d", s.Name, s.Priority))
	}
	if want := []string{"delta:30", "alpha:10"}; !slices.Equal(got, want) {
		t.Errorf("selected %v, want %v", got, want)
	}
	if err := sys.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	want := []string{
		// register-params for every component, in name order
		"register alpha", "register beta", "register delta", "register epsilon", "register gamma",
		// open; the failed and the declined component are closed at once
		"open alpha", "open beta", "open delta",
		"open epsilon", "close epsilon",
		"open gamma", "close gamma",
		// query; the declined one is closed at once
		"query alpha", "query beta", "close beta", "query delta",
		// close in reverse open order
		"close delta", "close alpha",
	}
	if ev := rec.get(); !slices.Equal(ev, want) {
		t.Errorf("events:\n got %q\nwant %q", ev, want)
	}
	fails := f.Failures()
	if len(fails) != 1 || fails[0].Component != "gamma" || fails[0].Step != "open" {
		t.Errorf("failures = %v, want gamma's open failure", fails)
	}
	if !strings.Contains(logs.String(), "socket: permission denied") {
		t.Errorf("gamma's failure was not logged:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "no hardware") {
		t.Errorf("a decline was logged at the default level:\n%s", logs.String())
	}
}

func TestRequestedFailureIsAnErrorAndClosesPartialOpen(t *testing.T) {
	rec := &recorder{}
	reg := testRegistry(rec, map[string]behaviour{
		"alpha": {},
		"beta":  {},
		"gamma": {openErr: errors.New("bind: address in use")},
	})
	t.Setenv("GOMPI_MCA_test", "alpha, beta,gamma")
	var logs testlog.Buffer
	_, f := loadTest(t, reg, &logs)
	err := f.Open(context.Background())
	if !errors.Is(err, ErrComponentFailed) || err.Error() != "test gamma: open: bind: address in use" {
		t.Fatalf("Open = %v, want ErrComponentFailed naming the component, the step and the cause once", err)
	}
	want := []string{"register alpha", "register beta", "register gamma",
		"open alpha", "open beta", "open gamma", "close gamma", "close beta", "close alpha"}
	if ev := rec.get(); !slices.Equal(ev, want) {
		t.Errorf("events:\n got %q\nwant %q", ev, want)
	}
}

func TestFatalFailureStopsOpen(t *testing.T) {
	rec := &recorder{}
	reg := testRegistry(rec, map[string]behaviour{
		"alpha": {},
		"beta":  {openErr: Fatal(errors.New("if_include and if_exclude are both set"))},
	})
	var logs testlog.Buffer
	_, f := loadTest(t, reg, &logs)
	err := f.Open(context.Background())
	// The sentinels match but add no text: the component and step once, then the cause.
	if !errors.Is(err, ErrComponentFailed) || !errors.Is(err, ErrFatal) ||
		err.Error() != "test beta: open: if_include and if_exclude are both set" {
		t.Fatalf("Open = %v, want the fatal error, naming beta and the step once", err)
	}
	want := []string{"register alpha", "register beta", "open alpha", "open beta", "close beta", "close alpha"}
	if ev := rec.get(); !slices.Equal(ev, want) {
		t.Errorf("events:\n got %q\nwant %q", ev, want)
	}
}

func TestSelectionFiltersAndPriorityParameter(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"all", nil, []string{"gamma", "beta", "alpha"}},
		{"include", map[string]string{"GOMPI_MCA_test": "alpha,gamma"}, []string{"gamma", "alpha"}},
		{"exclude", map[string]string{"GOMPI_MCA_test": " ^ beta "}, []string{"gamma", "alpha"}},
		{"priority", map[string]string{"GOMPI_MCA_test_alpha_priority": "99"}, []string{"alpha", "gamma", "beta"}},
		{"negative priority", map[string]string{"GOMPI_MCA_test_beta_priority": "-1"}, []string{"gamma", "alpha"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			rec := &recorder{}
			reg := testRegistry(rec, map[string]behaviour{"alpha": {priority: 1}, "beta": {priority: 2}, "gamma": {priority: 3}})
			var logs testlog.Buffer
			sys, f := loadTest(t, reg, &logs)
			defer sys.Close()
			if err := f.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			sel, err := f.Select(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sel {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSelectionErrors(t *testing.T) {
	tests := []struct {
		value string
		is    error
		say   string
	}{
		{"alpha,zeta", ErrUnknownComponent, `test: value "alpha,zeta" from environment GOMPI_MCA_test: no component named "zeta" (available: alpha, beta)`},
		{"alpha,^beta", params.ErrInvalidValue, "'^' may only start the list"},
		{"alpha,,beta", params.ErrInvalidValue, "empty component name"},
		{"^beta, alpha", ErrSelection, `test: value "^beta, alpha" from environment GOMPI_MCA_test excludes every component (available: alpha, beta): nothing is left to select`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv("GOMPI_MCA_test", tt.value)
			reg := testRegistry(&recorder{}, map[string]behaviour{"alpha": {}, "beta": {}})
			var logs testlog.Buffer
			_, err := Load(Options{Registry: reg, Logger: quietLogger(&logs)}, params.Inputs{})
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("Load = %v, want %v saying %q", err, tt.is, tt.say)
			}
			// The sentinels classify; the message says what is wrong, once.
			for _, sentinel := range []error{ErrUnknownComponent, ErrSelection} {
				if strings.Contains(err.Error(), sentinel.Error()) {
					t.Errorf("Load = %v: says %q", err, sentinel)
				}
			}
		})
	}
}

func TestParseSelection(t *testing.T) {
	tests := []struct {
		in      string
		exclude bool
		names   []string
		bad     bool
	}{
		{"", false, nil, false},
		{"  ", false, nil, false},
		{"tcp", false, []string{"tcp"}, false},
		{" tcp , self ", false, []string{"tcp", "self"}, false},
		{"^tcp,self", true, []string{"tcp", "self"}, false},
		{"^ tcp", true, []string{"tcp"}, false},
		{"tcp,tcp", false, []string{"tcp"}, false},
		{"tcp,^self", false, nil, true},
		{"^^tcp", false, nil, true},
		{"^", false, nil, true},
		{"tcp,", false, nil, true},
		{",tcp", false, nil, true},
	}
	for _, tt := range tests {
		sel, err := ParseSelection(tt.in)
		if tt.bad {
			if !errors.Is(err, ErrSelection) {
				t.Errorf("ParseSelection(%q) = %v, want ErrSelection", tt.in, err)
			}
			continue
		}
		if err != nil || sel.Exclude != tt.exclude || !slices.Equal(sel.Names, tt.names) {
			t.Errorf("ParseSelection(%q) = %+v, %v; want exclude=%v names=%v", tt.in, sel, err, tt.exclude, tt.names)
		}
	}
}

func TestVersionMismatchIsRefused(t *testing.T) {
	tests := []struct {
		name             string
		model, framework Version
		say              string
	}{
		{"model", Version{ModelMajor + 1, 0, 0}, Version{2, 0, 0}, "built for component model 2.0.0, this program has 1.0.0"},
		{"framework", ModelVersion(), Version{3, 0, 0}, "built for test framework API 3.0.0, this program has 2.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			reg := testRegistry(rec, map[string]behaviour{"alpha": {}})
			info := testInfo(testFW, "old", func() Component { return &recComponent{rec: rec} })
			info.FrameworkVersion, info.ModelVersion = tt.framework, tt.model
			reg.Register(info)
			var logs testlog.Buffer
			sys, f := loadTest(t, reg, &logs)
			defer sys.Close()
			var old ComponentInfo
			for _, c := range f.Components() {
				if c.Name == "old" {
					old = c
				}
			}
			if !errors.Is(old.Refused, ErrVersion) || !strings.Contains(old.Refused.Error(), tt.say) {
				t.Fatalf("old component refusal = %v, want ErrVersion saying %q", old.Refused, tt.say)
			}
			if !strings.Contains(logs.String(), tt.say) {
				t.Errorf("refusal not logged:\n%s", logs.String())
			}
			if ev := rec.get(); slices.Contains(ev, "register old") {
				t.Errorf("refused component was registered: %v", ev)
			}
			if err := f.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			if ev := rec.get(); slices.Contains(ev, "open old") {
				t.Errorf("refused component was opened: %v", ev)
			}

			t.Setenv("GOMPI_MCA_test", "old")
			_, err := Load(Options{Registry: reg, Logger: quietLogger(&logs)}, params.Inputs{})
			if !errors.Is(err, ErrComponentFailed) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("requesting the refused component: %v, want ErrComponentFailed saying %q", err, tt.say)
			}
		})
	}
}

func TestVerboseLogsEveryStep(t *testing.T) {
	t.Setenv("GOMPI_MCA_test_base_verbose", "debug")
	rec := &recorder{}
	reg := testRegistry(rec, map[string]behaviour{"alpha": {priority: 5}})
	var logs testlog.Buffer
	sys, f := loadTest(t, reg, &logs)
	if err := f.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Select(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sys.Close(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"registered component", "opening component", "component opened",
		"component accepted", "selected components", "closing component"} {
		line := ""
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, step) {
				line = l
			}
		}
		if !strings.Contains(line, "gompi.test") || !strings.Contains(line, "alpha") {
			t.Errorf("no %q line naming the framework logger and alpha in:\n%s", step, logs.String())
		}
	}
}

func TestLogLevel(t *testing.T) {
	tests := []struct {
		v    params.Verbosity
		want hclog.Level
	}{
		{-1, hclog.Off}, {0, hclog.Error}, {1, hclog.Warn}, {19, hclog.Warn}, {20, hclog.Warn}, {40, hclog.Info},
		{60, hclog.Debug}, {79, hclog.Debug}, {80, hclog.Trace}, {100, hclog.Trace},
	}
	for _, tt := range tests {
		if got := LogLevel(tt.v); got != tt.want {
			t.Errorf("LogLevel(%d) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestLifecycleStateErrors(t *testing.T) {
	reg := testRegistry(&recorder{}, map[string]behaviour{"alpha": {}})
	var logs testlog.Buffer
	sys := New(Options{Registry: reg, Logger: quietLogger(&logs)})
	f, _ := sys.Framework(testFW)
	if err := f.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "must be resolved") {
		t.Errorf("Open before Resolve = %v", err)
	}
	if err := sys.Resolve(params.Inputs{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Select(context.Background()); err == nil || !strings.Contains(err.Error(), "must be open") {
		t.Errorf("Select before Open = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Open(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context = %v", err)
	}
	if _, err := sys.Framework("nope"); err == nil || !strings.Contains(err.Error(), "known: test") {
		t.Errorf("unknown framework: %v", err)
	}
}

func TestSelectionCheckSaysWhere(t *testing.T) {
	v := params.Value{Raw: "^zeta", Source: params.Source{Kind: params.SourceFile, Path: "t.conf", Line: 2}}
	sel, err := ParseSelection(v.Raw)
	if err != nil {
		t.Fatal(err)
	}
	warnings, err := sel.Check("test", v, []string{"alpha"})
	want := `test: value "^zeta" from file t.conf:2: excludes "zeta", which no component is named (available: alpha)`
	if err != nil || len(warnings) != 1 || warnings[0] != want {
		t.Fatalf("Check = %q, %v; want the warning %q", warnings, err, want)
	}
}

// checkingComponent refuses test_<name>_note=bad as a ParamChecker.
type checkingComponent struct {
	recComponent
	note params.Param[string]
}

func (c *checkingComponent) RegisterParams(r *params.Registrar) error {
	c.note = r.String(params.Spec{Name: "note", Help: "A note for tests.", Level: 9})
	return nil
}

func (c *checkingComponent) CheckParams(s *params.Snapshot) error {
	c.rec.add("check %s", c.ComponentName)
	if c.note.Get(s) == "bad" {
		return fmt.Errorf("%s=bad disagrees", c.note.Name())
	}
	return nil
}

func TestParamCheckerRunsAtResolve(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		want   string // error; empty: none
		checks []string
	}{
		{"fine", nil, "", []string{"check alpha", "check beta"}},
		{"refused", map[string]string{"GOMPI_MCA_test_beta_note": "bad"},
			"mca: test beta: parameters: test_beta_note=bad disagrees", []string{"check alpha", "check beta"}},
		{"excluded", map[string]string{"GOMPI_MCA_test_beta_note": "bad", "GOMPI_MCA_test": "^beta"}, "", []string{"check alpha"}},
		{"disabled", map[string]string{"GOMPI_MCA_test_beta_note": "bad", "GOMPI_MCA_test_beta_priority": "-1"}, "", []string{"check alpha"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			rec := &recorder{}
			reg := NewRegistry()
			reg.RegisterFramework(FrameworkSpec{Name: testFW, Version: Version{2, 1, 0}, Description: "test framework"})
			for _, name := range []string{"alpha", "beta"} {
				reg.Register(testInfo(testFW, name, func() Component { return &checkingComponent{recComponent: recComponent{rec: rec}} }))
			}
			var logs testlog.Buffer
			sys, err := Load(Options{Registry: reg, Logger: quietLogger(&logs)}, params.Inputs{})
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != tt.want) {
				t.Errorf("Load: %v, want %q", err, tt.want)
			}
			if err == nil {
				sys.Close()
			}
			if ev := rec.get(); !slices.Equal(ev, tt.checks) {
				t.Errorf("events %q, want %q", ev, tt.checks)
			}
		})
	}
}
