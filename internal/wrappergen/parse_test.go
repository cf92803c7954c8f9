package wrappergen

import (
	"strings"
	"testing"
)

// TestErrors checks that each mistake in a wrapper file is reported with
// the file and line that made it.
func TestErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unknown macro at file level", "package x\n\n{{bogus}}\n", "e.w:3: unknown macro {{bogus}}"},
		{"unknown macro with words", "{{fn f Send}}\n{{callfn}}\n{{frobnicate a b}}\n{{endfn}}\n", "e.w:3: unknown macro {{frobnicate a b}}"},
		{"argument in forallfn", "{{forallfn f}}\n{{buf}}\n{{endforallfn}}\n", "e.w:2: unknown macro {{buf}}"},
		{"unclosed braces", "x\n{{fn f Send\n", "e.w:2: {{ is not closed by }}"},
		{"empty macro", "\n{{ }}\n", "e.w:2: empty macro {{}}"},
		{"unclosed block", "a\n{{fn f Send}}\n{{callfn}}\n", "e.w:2: {{fn}} is not closed by {{endfn}}"},
		{"end without start", "\n\n{{endfnall}}\n", "e.w:3: {{endfnall}} without {{fnall}}"},
		{"misnested end", "{{fnall f}}\n{{callfn}}\n{{endfn}}\n", "e.w:3: {{endfn}} closes {{fnall}} opened at line 1"},
		{"fn in forallfn", "{{forallfn f}}\n{{fn g Send}}\n{{callfn}}\n{{endfn}}\n{{endforallfn}}\n", "e.w:2: {{fn}} inside {{forallfn}} opened at line 1: blocks do not nest"},
		{"fnall in forallfn", "\n{{forallfn f Init}}\n{{fnall g}}\n", "e.w:3: {{fnall}} inside {{forallfn}} opened at line 2: blocks do not nest"},
		{"fn in fn", "{{fn f Send}}\n{{fn g Recv}}\n", "e.w:2: {{fn}} inside {{fn}} opened at line 1: blocks do not nest"},
		{"no callfn", "\n{{fn f Send}}\nx()\n{{endfn}}\n", "e.w:2: {{fn}} has no {{callfn}}: a wrapper must call the function"},
		{"two callfn", "{{fnall f}}\n{{callfn}}\n\n{{callfn}}\n{{endfnall}}\n", "e.w:4: second {{callfn}} in {{fnall}} opened at line 1"},
		{"callfn outside", "\n{{callfn}}\n", "e.w:2: {{callfn}} outside a fn or fnall block"},
		{"callfn in forallfn", "{{forallfn f}}\n{{callfn}}\n{{endforallfn}}\n", "e.w:2: {{callfn}} outside a fn or fnall block"},
		{"vardecl outside", "{{vardecl int x}}\n", "e.w:1: {{vardecl}} outside a fn or fnall block"},
		{"bad vardecl", "{{fn f Send}}\n{{vardecl int}}\n{{callfn}}\n{{endfn}}\n", "e.w:2: bad {{vardecl int}}"},
		{"vardecl twice", "{{fn f Send}}\n{{vardecl int x}}\n{{vardecl int x}}\n{{callfn}}\n{{endfn}}\n", "e.w:3: variable x declared twice in {{fn}} opened at line 1"},
		{"returnVal outside", "{{returnVal}}\n", "e.w:1: {{returnVal}} outside a fn or fnall block"},
		{"this outside", "{{this}}\n", "e.w:1: {{this}} outside a block"},
		{"no escape", "{{fnall}}\n", "e.w:1: {{fnall}} needs an escape name"},
		{"keyword escape", "{{fn callfn Send}}\n", `e.w:1: {{fn}}: escape name "callfn"`},
		{"fn lists nothing", "{{fn f}}\n{{callfn}}\n{{endfn}}\n", "e.w:1: {{fn f}} lists no function"},
		{"extra words", "{{fn f Send}}\n{{callfn now}}\n{{endfn}}\n", "e.w:2: {{callfn}} takes no arguments"},
		{"unknown function", "\n{{fn f Send Sned}}\n{{callfn}}\n{{endfn}}\n", `e.w:2: {{fn}}: unknown function "Sned"`},
		{"unknown excluded function", "{{fnall f Bogus}}\n{{callfn}}\n{{endfnall}}\n", `e.w:1: {{fnall}}: unknown function "Bogus"`},
		{"unknown foreachfn function", "{{foreachfn f Wtime Nope}}\n{{endforeachfn}}\n", `e.w:1: {{foreachfn}}: unknown function "Nope"`},
		{"unknown argument", "{{fn f Send Recv}}\n\n  use({{dest}})\n{{callfn}}\n{{endfn}}\n", "e.w:3: unknown macro or argument name {{dest}}: no wrappergen macro has that name, and Recv has no such argument (it has buf, count, dt, source, tag, comm)"},
		{"unknown argument in fnall", "{{fnall f}}\n{{comm}}\n{{callfn}}\n{{endfnall}}\n", "e.w:2: unknown macro or argument name {{comm}}: no wrappergen macro has that name, and Init has no such argument (it has none)"},
		{"argument number out of range", "{{fn f Barrier}}\n{{1}}\n{{callfn}}\n{{endfn}}\n", "e.w:2: {{1}}: Barrier has 1 arguments"},
		{"generated code does not parse", "{{fn f Send}}\nx := \n\n{{callfn}}\n{{endfn}}\n", "e.w:2: generated Go does not parse"},
		{"file-level code does not parse", "func broken( {\n}\n", "e.w:1: generated Go does not parse"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate(Config{Package: "p", Component: "e", Wrappers: []Wrapper{{Name: "e.w", Src: []byte(c.src)}}})
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error\n%v\nwant prefix\n%s", err, c.want)
			}
		})
	}
}

// TestErrorNamesItsFile checks that an error in the second wrapper file
// names that file.
func TestErrorNamesItsFile(t *testing.T) {
	_, err := Generate(Config{Package: "p", Component: "e", Wrappers: []Wrapper{
		{Name: "a.w", Src: []byte("{{fn f Send}}\n{{callfn}}\n{{endfn}}\n")},
		{Name: "b.w", Src: []byte("\n{{fn f Send}}\n{{endfn}}\n")},
	}})
	if err == nil || !strings.HasPrefix(err.Error(), "b.w:2: ") {
		t.Errorf("error %v; want it at b.w:2", err)
	}
}

func TestBadConfig(t *testing.T) {
	w := []Wrapper{{Name: "a.w", Src: []byte("")}}
	for _, cfg := range []Config{
		{Package: "my-pkg", Component: "x", Wrappers: w},
		{Package: "p", Component: "X Y", Wrappers: w},
		{Package: "p", Component: "x"},
	} {
		if _, err := Generate(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
