package params

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Layers for btl_tcp_priority, lowest precedence first; layer i sets the value i.
const (
	lvlDefault = iota
	lvlSystem
	lvlUser
	lvlParamFiles
	lvlTune
	lvlEnv
	lvlCommandLine
	lvlOverride
)

// setLayers sets btl_tcp_priority to i in every layer i from 1 to top, each
// file on its line 2, and returns the inputs and the expected source of top.
func setLayers(t *testing.T, top int) (Inputs, Source) {
	t.Helper()
	dir := t.TempDir()
	file := func(name string, i int) string {
		return writeFile(t, dir, name, fmt.Sprintf("# layer %d\nbtl_tcp_priority = %d\n", i, i))
	}
	var in Inputs
	srcs := []Source{{Kind: SourceDefault}}
	for i := 1; i <= top; i++ {
		var src Source
		switch i {
		case lvlSystem:
			in.SystemFile = file("system.conf", i)
			src = Source{Kind: SourceFile, Path: in.SystemFile, Line: 2}
		case lvlUser:
			in.UserFile = file("user.conf", i)
			src = Source{Kind: SourceFile, Path: in.UserFile, Line: 2}
		case lvlParamFiles:
			pf := file("extra.conf", i)
			t.Setenv("GOMPI_MCA_mca_base_param_files", pf)
			src = Source{Kind: SourceFile, Path: pf, Line: 2}
		case lvlTune:
			in.TuneFiles = []string{file("tune.conf", i)}
			src = Source{Kind: SourceFile, Path: in.TuneFiles[0], Line: 2}
		case lvlEnv:
			t.Setenv("GOMPI_MCA_btl_tcp_priority", fmt.Sprint(i))
			src = Source{Kind: SourceEnv, Name: "GOMPI_MCA_btl_tcp_priority"}
		case lvlCommandLine:
			in.CommandLine = []Setting{{"btl_tcp_priority", fmt.Sprint(i)}}
			src = Source{Kind: SourceCommandLine}
		case lvlOverride:
			in.OverrideFile = file("override.conf", i)
			src = Source{Kind: SourceOverride, Path: in.OverrideFile, Line: 2}
		}
		srcs = append(srcs, src)
	}
	return in, srcs[top]
}

func TestPrecedence(t *testing.T) {
	names := []string{"default", "system file", "user file", "mca_base_param_files file",
		"tune file", "environment", "command line", "override file"}
	for top, name := range names {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			in, wantSrc := setLayers(t, top)
			s := mustResolve(t, testRegistry(t), in)
			v, ok := s.Lookup("btl_tcp_priority")
			want := top
			if top == lvlDefault {
				want = 10
			}
			if !ok || v.Parsed != want || v.Raw != fmt.Sprint(want) {
				t.Fatalf("value %v (raw %q), want %d", v.Parsed, v.Raw, want)
			}
			if v.Source != wantSrc {
				t.Fatalf("source %+v, want %+v", v.Source, wantSrc)
			}
			locks := warningsContaining(s, "locks it")
			if top == lvlOverride {
				want := fmt.Sprintf("parameter btl_tcp_priority: value from command line is ignored because override file %s:2 locks it", in.OverrideFile)
				if !reflect.DeepEqual(locks, []string{want}) {
					t.Fatalf("lock warnings %q, want %q", locks, want)
				}
			} else if len(locks) > 0 {
				t.Fatalf("unexpected lock warnings %q", locks)
			}
		})
	}
}

// Viper holds the value; the resolver tracks its source. They must agree.
func TestViperAgreesWithTrackedSource(t *testing.T) {
	cases := map[string]func(t *testing.T) Inputs{}
	for top := lvlDefault; top <= lvlCommandLine; top++ {
		cases[fmt.Sprint("layers to ", top)] = func(t *testing.T) Inputs {
			in, _ := setLayers(t, top)
			return in
		}
	}
	cases["synonym and deprecated env"] = func(t *testing.T) Inputs {
		t.Setenv("GOMPI_MCA_btl_tcp_pri", "2")
		t.Setenv("GOMPI_MCA_btl_tcp_old_priority", "3")
		return Inputs{}
	}
	cases["deprecated env only"] = func(t *testing.T) Inputs {
		t.Setenv("GOMPI_MCA_btl_tcp_old_priority", "3")
		return Inputs{}
	}
	cases["empty env value"] = func(t *testing.T) Inputs {
		t.Setenv("GOMPI_MCA_coll_tuned_algorithm", "")
		t.Setenv("GOMPI_MCA_btl_tcp_if_include", "")
		return Inputs{UserFile: writeFile(t, t.TempDir(), "u.conf", "btl_tcp_if_include = eth0\n")}
	}
	cases["synonyms in files and command line"] = func(t *testing.T) Inputs {
		dir := t.TempDir()
		return Inputs{
			UserFile:    writeFile(t, dir, "u.conf", "btl_tcp_prio = 1\nbtl_tcp_eager_limit = 1k\nbtl_tcp_pri=2\n"),
			SystemFile:  writeFile(t, dir, "s.conf", "btl_tcp_eager_limit = 2k\nprof_base_verbose = info\n"),
			CommandLine: []Setting{{"btl_tcp_pri", "5"}, {"btl_tcp_old_priority", "6"}},
		}
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			res := newResolver(testRegistry(t).freeze())
			res.collect(setup(t))
			if len(res.errs) > 0 {
				t.Fatal(res.errs)
			}
			v, err := res.store()
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.defs {
				d := &res.defs[i]
				got, tr := v.GetString(d.Name), res.tracked(d)
				if got != tr.raw {
					t.Errorf("%s: viper has %q, tracked %q from %v", d.Name, got, tr.raw, tr.src)
				}
			}
		})
	}
}

func TestMultipleFilesLeftmostWins(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	tune1 := writeFile(t, dir, "t1.conf", "btl_tcp_priority = 1\n")
	tune2 := writeFile(t, dir, "t2.conf", "btl_tcp_priority = 2\nbtl_tcp_eager_limit = 2k\n")
	pf1 := writeFile(t, dir, "p1.conf", "coll_tuned_algorithm = tree\n")
	pf2 := writeFile(t, dir, "p2.conf", "coll_tuned_algorithm = ring\nprof_base_verbose = 5\n")
	user := writeFile(t, dir, "u.conf", "prof_base_verbose = 7\nprof_base_verbose = 8\nmca_base_param_files = /nonexistent\n")
	s := mustResolve(t, testRegistry(t), Inputs{
		TuneFiles:   []string{tune1, tune2},
		UserFile:    user,
		CommandLine: []Setting{{"mca_base_param_files", pf1 + "," + pf2}},
	})
	for name, want := range map[string]Source{
		"btl_tcp_priority":     {Kind: SourceFile, Path: tune1, Line: 1},
		"btl_tcp_eager_limit":  {Kind: SourceFile, Path: tune2, Line: 2},
		"coll_tuned_algorithm": {Kind: SourceFile, Path: pf1, Line: 1},
		"prof_base_verbose":    {Kind: SourceFile, Path: pf2, Line: 2},
		"mca_base_param_files": {Kind: SourceCommandLine},
	} {
		if v, _ := s.Lookup(name); v.Source != want {
			t.Errorf("%s from %v, want %v", name, v.Source, want)
		}
	}
	// Within one file the later line wins (user file, no higher layer).
	s = mustResolve(t, testRegistry(t), Inputs{UserFile: user})
	if v, _ := s.Lookup("prof_base_verbose"); v.Parsed != Verbosity(8) || v.Source.Line != 2 {
		t.Errorf("later line: %v from %v", v.Parsed, v.Source)
	}
	want := fmt.Sprintf("parameter mca_base_param_files can be set only on the command line or in the environment; ignoring it in file %s:3", user)
	if w := warningsContaining(s, "mca_base_param_files"); !reflect.DeepEqual(w, []string{want}) {
		t.Errorf("warnings %q, want %q", w, want)
	}
}

func TestMissingFiles(t *testing.T) {
	clearEnv(t)
	missing := t.TempDir() + "/missing.conf"
	tests := []struct {
		name string
		in   Inputs
		env  string // GOMPI_MCA_mca_base_param_files
		err  bool
	}{
		{"user and system", Inputs{UserFile: missing, SystemFile: missing, OverrideFile: missing}, "", false},
		{"tune", Inputs{TuneFiles: []string{missing}}, "", true},
		{"param files", Inputs{}, missing, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMPI_MCA_mca_base_param_files", tt.env)
			_, err := testRegistry(t).Resolve(tt.in)
			if tt.err != (err != nil) {
				t.Fatalf("err = %v, want error: %v", err, tt.err)
			}
			if err != nil && !strings.Contains(err.Error(), missing) {
				t.Fatalf("error %q does not name %s", err, missing)
			}
		})
	}
}

func TestSynonymsAndDeprecated(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		cmdline []Setting
		file    string
		want    int
		src     string // Source.String, with the file path replaced by F
		depWarn string // the deprecation warning expected, with F for the file path
	}{
		{"primary beats synonym in env",
			map[string]string{"GOMPI_MCA_btl_tcp_priority": "1", "GOMPI_MCA_btl_tcp_prio": "2"},
			nil, "", 1, "environment GOMPI_MCA_btl_tcp_priority", ""},
		{"first synonym beats the second and the deprecated name",
			map[string]string{"GOMPI_MCA_btl_tcp_pri": "3", "GOMPI_MCA_btl_tcp_prio": "2", "GOMPI_MCA_btl_tcp_old_priority": "4"},
			nil, "", 2, "environment GOMPI_MCA_btl_tcp_prio",
			`parameter "btl_tcp_old_priority" is deprecated; use "btl_tcp_priority" (set in environment GOMPI_MCA_btl_tcp_old_priority)`},
		{"synonym in file",
			nil, nil, "btl_tcp_prio = 5\n", 5, "file F:1 (as btl_tcp_prio)", ""},
		{"deprecated in file",
			nil, nil, "\nbtl_tcp_old_priority = 6\n", 6, "file F:2 (as btl_tcp_old_priority)",
			`parameter "btl_tcp_old_priority" is deprecated; use "btl_tcp_priority" (set in file F:2)`},
		{"deprecated on command line, env and file: one warning",
			map[string]string{"GOMPI_MCA_btl_tcp_old_priority": "8"},
			[]Setting{{"btl_tcp_old_priority", "7"}}, "btl_tcp_old_priority = 9\n", 7,
			"command line (as btl_tcp_old_priority)",
			`parameter "btl_tcp_old_priority" is deprecated; use "btl_tcp_priority" (set on the command line)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			in := Inputs{CommandLine: tt.cmdline}
			if tt.file != "" {
				in.UserFile = writeFile(t, t.TempDir(), "u.conf", tt.file)
			}
			s := mustResolve(t, testRegistry(t), in)
			fix := func(str string) string { return strings.ReplaceAll(str, "F", in.UserFile) }
			v, ok := s.Lookup("btl_tcp_old_priority") // Lookup accepts any name
			if !ok || v.Parsed != tt.want || v.Source.String() != fix(tt.src) {
				t.Fatalf("got %v from %q, want %d from %q", v.Parsed, v.Source, tt.want, fix(tt.src))
			}
			if !s.IsSet("btl_tcp_prio") || s.IsSet("btl_tcp_eager_limit") {
				t.Errorf("IsSet: the priority %v (want true, by a synonym), the eager limit %v (want false)",
					s.IsSet("btl_tcp_prio"), s.IsSet("btl_tcp_eager_limit"))
			}
			deps := warningsContaining(s, "deprecated")
			var want []string
			if tt.depWarn != "" {
				want = []string{fix(tt.depWarn)}
			}
			if !reflect.DeepEqual(deps, want) {
				t.Fatalf("deprecation warnings %q, want %q", deps, want)
			}
		})
	}
}

func TestEmptyEnvIsAValue(t *testing.T) {
	clearEnv(t)
	r := NewRegistry()
	p := r.Scope("oob", "tcp").String(Spec{Name: "host", Default: "localhost", Help: "h", Level: 1})
	t.Setenv("GOMPI_MCA_oob_tcp_host", "")
	s := mustResolve(t, r, Inputs{})
	v, _ := s.Lookup(p.Name())
	if p.Get(s) != "" || v.Source.Kind != SourceEnv || !s.IsSet(p.Name()) {
		t.Fatalf("got %q from %v, want the empty value from the environment", p.Get(s), v.Source)
	}
}

func TestUnknownNames(t *testing.T) {
	type setup struct {
		env     map[string]string
		file    string // user file
		cmdline []Setting
	}
	tests := []struct {
		name  string
		setup setup
		want  string // with F for the user file
	}{
		{"env", setup{env: map[string]string{"GOMPI_MCA_btl_tcp_if_inclde": "eth0"}},
			`unknown parameter "btl_tcp_if_inclde" in environment GOMPI_MCA_btl_tcp_if_inclde; did you mean btl_tcp_if_include?`},
		{"env wrong case", setup{env: map[string]string{"GOMPI_MCA_BTL_TCP_PRIORITY": "1"}},
			`unknown parameter "BTL_TCP_PRIORITY" in environment GOMPI_MCA_BTL_TCP_PRIORITY; did you mean btl_tcp_priority?`},
		{"file", setup{file: "# c\nbtl_tcp_eager_limt = 4k\n"},
			`unknown parameter "btl_tcp_eager_limt" in file F:2; did you mean btl_tcp_eager_limit?`},
		{"command line, contained", setup{cmdline: []Setting{{"tcp_priority", "1"}}},
			`unknown parameter "tcp_priority" on the command line; did you mean btl_tcp_priority?`},
		{"nothing close", setup{cmdline: []Setting{{"zzzzzzzzzzzzzzzzzz", "1"}}},
			`unknown parameter "zzzzzzzzzzzzzzzzzz" on the command line`},
	}
	for _, tt := range tests {
		for _, strict := range []string{"", "env", "file", "command line"} {
			t.Run(tt.name+"/strict "+strict, func(t *testing.T) {
				clearEnv(t)
				t.Setenv(LaunchEnvVar, `{"mca":[]}`) // not a parameter: no warning
				for k, v := range tt.setup.env {
					t.Setenv(k, v)
				}
				in := Inputs{CommandLine: tt.setup.cmdline}
				file := tt.setup.file
				switch strict {
				case "env":
					t.Setenv("GOMPI_MCA_mca_base_strict", "yes")
				case "file":
					file = "mca_base_strict = true\n" + file
				case "command line":
					in.CommandLine = append(in.CommandLine, Setting{"mca_base_strict", "1"})
				}
				in.UserFile = writeFile(t, t.TempDir(), "u.conf", file)
				want := strings.ReplaceAll(tt.want, "F", in.UserFile)
				if strict == "file" {
					want = strings.ReplaceAll(want, ":2;", ":3;")
				}
				s, err := testRegistry(t).Resolve(in)
				if strict == "" {
					if err != nil {
						t.Fatal(err)
					}
					if w := s.Warnings(); !reflect.DeepEqual(w, []string{want}) {
						t.Fatalf("warnings %q, want %q", w, want)
					}
					return
				}
				if s != nil || !errors.Is(err, ErrUnknownParam) || !strings.Contains(err.Error(), want) {
					t.Fatalf("Resolve = %v, %v; want ErrUnknownParam containing %q", s, err, want)
				}
			})
		}
	}
}

func TestWarningsDeterministic(t *testing.T) {
	clearEnv(t)
	for _, n := range []string{"zeta", "alpha", "mid", "btl_tcp_old_priority"} {
		t.Setenv("GOMPI_MCA_"+n, "1")
	}
	var first []string
	for i := range 5 {
		s := mustResolve(t, testRegistry(t), Inputs{})
		if i == 0 {
			first = s.Warnings()
			if len(first) != 4 {
				t.Fatalf("warnings %q", first)
			}
		} else if !reflect.DeepEqual(s.Warnings(), first) {
			t.Fatalf("warnings changed: %q then %q", first, s.Warnings())
		}
	}
}

func TestSnapshotValues(t *testing.T) {
	clearEnv(t)
	r := testRegistry(t)
	s := mustResolve(t, r, Inputs{})
	vals, defs := s.Values(), r.Defs()
	if len(vals) != len(defs) {
		t.Fatalf("%d values for %d defs", len(vals), len(defs))
	}
	for i := range vals {
		if vals[i].Def.Name != defs[i].Name || vals[i].Source.Kind != SourceDefault {
			t.Fatalf("value %d is %s from %v, want %s from default", i, vals[i].Def.Name, vals[i].Source, defs[i].Name)
		}
	}
	vals[0].Def.Name = "changed"
	if s.Values()[0].Def.Name == "changed" {
		t.Fatal("Values exposes the snapshot")
	}
	if _, ok := s.Lookup("nope"); ok {
		t.Fatal("Lookup of an unknown name succeeded")
	}
}

func TestSourceString(t *testing.T) {
	tests := []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceDefault}, "default"},
		{Source{Kind: SourceCommandLine}, "command line"},
		{Source{Kind: SourceCommandLine, Name: "old"}, "command line (as old)"},
		{Source{Kind: SourceEnv, Name: "GOMPI_MCA_x"}, "environment GOMPI_MCA_x"},
		{Source{Kind: SourceFile, Path: "/etc/x.conf", Line: 12}, "file /etc/x.conf:12"},
		{Source{Kind: SourceOverride, Path: "/etc/y.conf", Line: 3, Name: "old"}, "override file /etc/y.conf:3 (as old)"},
	}
	for _, tt := range tests {
		if got := tt.src.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestExcludedParametersSetTogether(t *testing.T) {
	clearEnv(t)
	r := NewRegistry()
	tcp := r.Scope("btl", "tcp")
	tcp.List(Spec{Name: "if_include", Help: "Interfaces to use.", Level: 2, Excludes: []string{"btl_tcp_if_exclude"}})
	tcp.List(Spec{Name: "if_exclude", Help: "Interfaces not to use.", Level: 2})
	if err := tcp.Err(); err != nil {
		t.Fatal(err)
	}
	mustResolve(t, r, Inputs{CommandLine: []Setting{{"btl_tcp_if_include", "lo"}}})
	mustResolve(t, r, Inputs{CommandLine: []Setting{{"btl_tcp_if_exclude", "lo"}}})
	t.Setenv("GOMPI_MCA_btl_tcp_if_exclude", "eth0")
	_, err := r.Resolve(Inputs{CommandLine: []Setting{{"btl_tcp_if_include", "lo"}}})
	want := `parameters btl_tcp_if_include (value "lo" from command line) and btl_tcp_if_exclude ` +
		`(value "eth0" from environment GOMPI_MCA_btl_tcp_if_exclude) exclude each other; set only one of them`
	if !errors.Is(err, ErrInvalidValue) || err.Error() != want {
		t.Fatalf("Resolve = %v, want ErrInvalidValue saying %q", err, want)
	}
	if err := r.Register(Def{Name: "btl_tcp_x", Framework: "btl", Component: "tcp", Kind: KindInt, Default: "0",
		Help: "X.", Level: 2, Excludes: []string{"btl_tcp_x"}}); !errors.Is(err, ErrRegistration) {
		t.Fatalf("a parameter excluding itself: %v, want ErrRegistration", err)
	}
}
