package params

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLaunchEnvRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		cmdline []Setting
		tune    []string
	}{
		{"empty", nil, nil},
		{"settings and tune", []Setting{{"btl_tcp_priority", "5"}, {"x_y_z", `odd "value", with = signs`}},
			[]string{"/a/tune.conf", "/b c/t.conf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			name, value, ok := strings.Cut(LaunchEnv(tt.cmdline, tt.tune), "=")
			if !ok || name != LaunchEnvVar {
				t.Fatalf("LaunchEnv names %q", name)
			}
			t.Setenv(name, value)
			in, err := DefaultInputs()
			if err != nil {
				t.Fatal(err)
			}
			if len(in.CommandLine)+len(tt.cmdline) > 0 && !reflect.DeepEqual(in.CommandLine, tt.cmdline) {
				t.Errorf("CommandLine %q, want %q", in.CommandLine, tt.cmdline)
			}
			if len(in.TuneFiles)+len(tt.tune) > 0 && !reflect.DeepEqual(in.TuneFiles, tt.tune) {
				t.Errorf("TuneFiles %q, want %q", in.TuneFiles, tt.tune)
			}
		})
	}
}

func TestLaunchEnvMalformed(t *testing.T) {
	for _, bad := range []string{`{"mca":`, `[]`, `{"mca":[{"name":"a"}],"extra":1}`, `{"mca":[{"value":"v"}]}`, `{} {}`} {
		t.Run(bad, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(LaunchEnvVar, bad)
			if _, err := DefaultInputs(); err == nil || !strings.Contains(err.Error(), LaunchEnvVar) {
				t.Fatalf("DefaultInputs() err = %v, want one naming %s", err, LaunchEnvVar)
			}
		})
	}
}

func TestDefaultInputsPaths(t *testing.T) {
	clearEnv(t)
	home, prefix := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(PrefixEnvVar, prefix)
	in, err := DefaultInputs()
	if err != nil {
		t.Fatal(err)
	}
	want := Inputs{
		UserFile:     filepath.Join(home, ".gompi", "mca-params.conf"),
		SystemFile:   filepath.Join(prefix, "etc", "gompi-mca-params.conf"),
		OverrideFile: filepath.Join(prefix, "etc", "gompi-mca-params-override.conf"),
	}
	if !reflect.DeepEqual(in, want) {
		t.Fatalf("DefaultInputs() = %+v, want %+v", in, want)
	}

	// Without GOMPI_PREFIX the prefix is derived from the executable.
	t.Setenv(PrefixEnvVar, "")
	in, err = DefaultInputs()
	if err != nil || !strings.HasSuffix(in.SystemFile, filepath.Join("etc", "gompi-mca-params.conf")) {
		t.Fatalf("DefaultInputs() = %+v, %v", in, err)
	}
}

// The encoded settings drive Resolve as the command line.
func TestLaunchEnvResolves(t *testing.T) {
	clearEnv(t)
	tune := writeFile(t, t.TempDir(), "t.conf", "btl_tcp_eager_limit = 1m\n")
	_, value, _ := strings.Cut(LaunchEnv([]Setting{{"btl_tcp_priority", "42"}}, []string{tune}), "=")
	t.Setenv(LaunchEnvVar, value)
	in, err := DefaultInputs()
	if err != nil {
		t.Fatal(err)
	}
	in.UserFile, in.SystemFile, in.OverrideFile = "", "", ""
	s := mustResolve(t, testRegistry(t), in)
	if v, _ := s.Lookup("btl_tcp_priority"); v.Parsed != 42 || v.Source.Kind != SourceCommandLine {
		t.Errorf("priority %v from %v", v.Parsed, v.Source)
	}
	if v, _ := s.Lookup("btl_tcp_eager_limit"); v.Parsed != int64(1<<20) || v.Source.Path != tune {
		t.Errorf("eager limit %v from %v", v.Parsed, v.Source)
	}
}

// EnvInputs reads an environment list as DefaultInputs reads its own, and a
// checked launch has Resolve return no warnings, but still its errors.
func TestEnvInputsChecked(t *testing.T) {
	clearEnv(t)
	prefix, home := t.TempDir(), t.TempDir()
	env := []string{
		"HOME=/elsewhere", "HOME=" + home, PrefixEnvVar + "=" + prefix,
	}
	env = append(env, Launch{MCA: []Setting{{"btl_tcp_nosuch", "1"}}, Checked: true}.Env()...)
	in, err := EnvInputs(env)
	if err != nil {
		t.Fatal(err)
	}
	want := Inputs{
		CommandLine:  []Setting{{"btl_tcp_nosuch", "1"}},
		TuneFiles:    []string{},
		UserFile:     filepath.Join(home, ".gompi", "mca-params.conf"),
		SystemFile:   filepath.Join(prefix, "etc", "gompi-mca-params.conf"),
		OverrideFile: filepath.Join(prefix, "etc", "gompi-mca-params-override.conf"),
		Checked:      true,
	}
	if !reflect.DeepEqual(in, want) {
		t.Fatalf("EnvInputs = %+v, want %+v", in, want)
	}
	s := mustResolve(t, testRegistry(t), in)
	if w := s.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q after a checked launch", w)
	}
	in.Checked = false
	if w := mustResolve(t, testRegistry(t), in).Warnings(); len(w) != 1 {
		t.Errorf("warnings %q, want the unknown name", w)
	}
	in.Checked = true
	in.CommandLine = append(in.CommandLine, Setting{"btl_tcp_priority", "x"})
	if _, err := testRegistry(t).Resolve(in); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("err = %v, want the bad value", err)
	}
}
