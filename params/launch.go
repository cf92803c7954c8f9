package params

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const (
	// EnvPrefix starts the environment variable of every parameter:
	// GOMPI_MCA_<name>, with the name in its exact (lower) case.
	EnvPrefix = "GOMPI_MCA_"
	// LaunchEnvVar carries a launcher's --mca settings and --tune files to
	// the processes it starts, as JSON (see LaunchEnv). It is not a parameter.
	LaunchEnvVar = "GOMPI_LAUNCH_MCA"
	// LaunchCheckedEnvVar, set to 1 by a launcher, says that it resolved the
	// parameters its processes will read and reported the warnings (see
	// Inputs.Checked). A variable of its own, so that programs built before
	// it still read LaunchEnvVar.
	LaunchCheckedEnvVar = "GOMPI_LAUNCH_CHECKED"
	// PrefixEnvVar, if set, is the installation prefix holding etc/; by
	// default it is the parent of the directory of the executable.
	PrefixEnvVar = "GOMPI_PREFIX"
)

// launchSpec is the JSON carried by LaunchEnvVar.
type launchSpec struct {
	MCA  []launchSetting `json:"mca"`
	Tune []string        `json:"tune"`
}

type launchSetting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// DefaultInputs returns the inputs of a normal process: the launcher's --mca
// and --tune (from the GOMPI_LAUNCH_MCA variable gompirun sets) and the
// default file locations.
func DefaultInputs() (Inputs, error) {
	home, _ := os.UserHomeDir()
	return inputs(os.Getenv, home, InstallPrefix())
}

// EnvInputs returns the inputs that DefaultInputs would return in a process
// started with the environment env, as "NAME=value" entries: a launcher
// uses it to read what its processes will read. With no GOMPI_PREFIX in
// env there are no system files (the process's executable would decide).
func EnvInputs(env []string) (Inputs, error) {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v // a later entry wins, as in exec
		}
	}
	getenv := func(k string) string { return vars[k] }
	return inputs(getenv, getenv("HOME"), getenv(PrefixEnvVar))
}

func inputs(getenv func(string) string, home, prefix string) (Inputs, error) {
	var in Inputs
	if home != "" {
		in.UserFile = filepath.Join(home, ".gompi", "mca-params.conf")
	}
	if prefix != "" {
		in.SystemFile = filepath.Join(prefix, "etc", "gompi-mca-params.conf")
		in.OverrideFile = filepath.Join(prefix, "etc", "gompi-mca-params-override.conf")
	}
	// An empty variable is treated as unset, so a launcher can clear it.
	if s := getenv(LaunchEnvVar); s != "" {
		spec, err := decodeLaunch(s)
		if err != nil {
			return Inputs{}, fmt.Errorf("environment variable %s: %w", LaunchEnvVar, err)
		}
		for _, m := range spec.MCA {
			in.CommandLine = append(in.CommandLine, Setting(m))
		}
		in.TuneFiles = spec.Tune
	}
	in.Checked = getenv(LaunchCheckedEnvVar) == "1"
	return in, nil
}

// InstallPrefix is $GOMPI_PREFIX, else the parent of the executable's
// directory (symlinks resolved, so a linked bin/ still finds the real etc/).
func InstallPrefix() string {
	if p := os.Getenv(PrefixEnvVar); p != "" {
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(filepath.Dir(exe))
}

func decodeLaunch(s string) (launchSpec, error) {
	var spec launchSpec
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return launchSpec{}, fmt.Errorf("malformed JSON: %w", err)
	}
	if dec.More() {
		return launchSpec{}, fmt.Errorf("malformed JSON: data after the object")
	}
	for i, m := range spec.MCA {
		if m.Name == "" {
			return launchSpec{}, fmt.Errorf("mca setting %d has no name", i+1)
		}
	}
	return spec, nil
}

// Launch is what a launcher passes to the processes it starts, in
// LaunchEnvVar and LaunchCheckedEnvVar.
type Launch struct {
	MCA  []Setting // --mca settings
	Tune []string  // --tune files, absolute
	// Checked says that the launcher resolved the parameters the processes
	// will read and reported the warnings; they do not repeat them.
	Checked bool
}

// LaunchEnv encodes --mca settings and --tune files as one NAME=VALUE
// environment entry for the ranks a launcher starts.
func LaunchEnv(cmdline []Setting, tune []string) string {
	return Launch{MCA: cmdline, Tune: tune}.Env()[0]
}

// Env encodes l as NAME=VALUE environment entries: LaunchEnvVar first,
// then LaunchCheckedEnvVar if Checked.
func (l Launch) Env() []string {
	spec := launchSpec{MCA: make([]launchSetting, len(l.MCA)), Tune: l.Tune}
	for i, s := range l.MCA {
		spec.MCA[i] = launchSetting(s)
	}
	if spec.Tune == nil {
		spec.Tune = []string{}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		panic("params: encoding launch settings: " + err.Error()) // strings always encode
	}
	env := []string{LaunchEnvVar + "=" + string(b)}
	if l.Checked {
		env = append(env, LaunchCheckedEnvVar+"=1")
	}
	return env
}
