package wrappergen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/prof"
)

// small is a function list for tests: one call with an error result, one
// without, one with two results.
var small = []prof.Function{
	{Name: "Send", Params: []prof.Param{{Name: "buf", Type: "[]byte"}, {Name: "dest", Type: "int"}}, Results: []string{"error"}},
	{Name: "Wtime", Results: []string{"float64"}},
	{Name: "Recv", Params: []prof.Param{{Name: "buf", Type: "[]byte"}, {Name: "source", Type: "int"}}, Results: []string{"pmpi.Status", "error"}},
}

func generate(t *testing.T, files ...string) (string, []string) {
	t.Helper()
	cfg := Config{Package: "p", Component: "c", Functions: small}
	for i, src := range files {
		cfg.Wrappers = append(cfg.Wrappers, Wrapper{Name: string(rune('a'+i)) + ".w", Src: []byte(src)})
	}
	out, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(out.Code), out.Warnings
}

// method returns the generated method named name, from func to }.
func method(t *testing.T, code, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?ms)^func \(layer module\) ` + name + `\(.*?^}\n`).FindString(code)
	if m == "" {
		t.Fatalf("no method %s in\n%s", name, code)
	}
	return m
}

// TestNesting checks the order of nested wrappers: pre-code in file order,
// post-code in reverse, variables hoisted and renamed apart.
func TestNesting(t *testing.T) {
	outer := "{{fn f Send}}\n{{vardecl int v, w}}\n{{v}} = 1 // pre outer {{f}}\n{{callfn}}\n{{w}} = {{v}} // post outer\n{{endfn}}\n"
	inner := "{{fnall g}}\n{{vardecl int v}}\n{{v}} = 2 // pre inner {{this}}\n{{callfn}}\n_ = {{v}} // post inner\n{{endfnall}}\n"
	code, _ := generate(t, outer, inner)
	got := method(t, code, "Send")
	want := `func (layer module) Send(buf []byte, dest int) (returnVal error) {
	var v int
	var w int
	var v1 int

	v = 1  // pre outer Send
	v1 = 2 // pre inner Send
	returnVal = layer.Next.Send(buf, dest)
	_ = v1 // post inner
	w = v  // post outer
	return
}
`
	if got != want {
		t.Errorf("Send:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(method(t, code, "Recv"), "ret0, returnVal = layer.Next.Recv(buf, source)") {
		t.Errorf("Recv does not keep both results:\n%s", method(t, code, "Recv"))
	}
}

// TestReturnValWithoutError checks that {{returnVal}} compiles in a call
// that returns no error: it is a nil error there.
func TestReturnValWithoutError(t *testing.T) {
	code, _ := generate(t, "{{fnall f}}\n{{callfn}}\nif {{returnVal}} != nil { panic({{returnVal}}) }\n{{endfnall}}\n")
	got := method(t, code, "Wtime")
	for _, s := range []string{"(ret0 float64)", "var returnVal error", "ret0 = layer.Next.Wtime()"} {
		if !strings.Contains(got, s) {
			t.Errorf("Wtime lacks %q:\n%s", s, got)
		}
	}
}

// TestArguments checks arguments by name and number, a variable that
// shadows an argument, and the per-function expansions.
func TestArguments(t *testing.T) {
	code, warnings := generate(t, "{{fn f Send}}\n{{vardecl int dest}}\n{{dest}} = {{1}} + len({{buf}}) + {{fileno}} + {{fn_num}} + {{fn_num}}\n{{callfn}}\n{{endfn}}\n")
	if got := method(t, code, "Send"); !strings.Contains(got, "dest1 = dest + len(buf) + 0 + 0 + 1") {
		t.Errorf("Send:\n%s", got)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "a.w:2: variable dest shadows Send's argument") {
		t.Errorf("warnings %q; want one about dest at a.w:2", warnings)
	}
}

// TestFileLevel checks forallfn, foreachfn and the imports of several
// files merged into one block.
func TestFileLevel(t *testing.T) {
	a := "import \"fmt\"\n\nvar (\n{{forallfn f Wtime}}\tn{{f}}{{fileno}} int\n{{endforallfn}})\n\nvar _ = fmt.Sprint\n"
	b := "import (\n\t\"fmt\"\n\t\"github.com/gompi/gompi/pmpi\"\n)\n\n{{foreachfn f Wtime Recv}}func name{{f}}() string { return \"{{f}}\" }\n{{endforeachfn}}\nvar _ pmpi.API\nvar _ = fmt.Sprint\n"
	code, _ := generate(t, a, b)
	for _, s := range []string{"nSend0 int", "nRecv0 int", "func nameWtime() string { return \"Wtime\" }", "func nameRecv()"} {
		if !strings.Contains(code, s) {
			t.Errorf("no %q in\n%s", s, code)
		}
	}
	for _, s := range []string{"nWtime0", "nameSend", "func (layer module)"} {
		if strings.Contains(code, s) {
			t.Errorf("unexpected %q in\n%s", s, code)
		}
	}
	if n := strings.Count(code, `"fmt"`); n != 1 {
		t.Errorf("fmt imported %d times", n)
	}
	if n := strings.Count(code, `"github.com/gompi/gompi/pmpi"`); n != 1 {
		t.Errorf("pmpi imported %d times", n)
	}
}
