package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mytool", "gen.go")
	var stdout, stderr bytes.Buffer
	args := []string{"-w", "../../internal/wrappergen/testdata/msgsize.w", "-o", out, "-name", "msgsize"}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"package mytool\n", `prof.Info("msgsize"`, "func (layer module) Isend("} {
		if !bytes.Contains(code, []byte(s)) {
			t.Errorf("output lacks %q", s)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.w")
	if err := os.WriteFile(bad, []byte("\n{{fn f Sendd}}\n{{callfn}}\n{{endfn}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-w", bad, "-o", filepath.Join(dir, "p", "x.go"), "-name", "x"}, bad + `:2: {{fn}}: unknown function "Sendd"`},
		{[]string{"-w", bad, "-o", filepath.Join(dir, "a-b", "x.go"), "-name", "x"}, "-package"},
		{[]string{"-w", bad, "-name", "x"}, "output"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v; want it to contain %q", c.args, err, c.want)
		}
	}
}
