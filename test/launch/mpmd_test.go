package launch

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Two programs and three app contexts in one job: ranks are numbered in
// order, each knows its app context, gets its own arguments and its own
// -x, and all of them form one world.
func TestMPMD(t *testing.T) {
	t.Parallel()
	other := filepath.Join(t.TempDir(), "appprog2")
	if out, err := exec.Command("cp", appprog, other).CombinedOutput(); err != nil {
		t.Fatalf("copying appprog: %v %s", err, out)
	}
	r := run(t, "", []string{"COLOR=none"}, "--timeout", "60", "--oversubscribe",
		"-np", "1", "-x", "COLOR=red", appprog, "first",
		":", "-np", "2", other, "second", "-x", "y",
		":", "-n", "1", "--export", "COLOR=blue", appprog, "third")
	r.wantCode(t, 0)
	for _, want := range []string{
		`rank 0 of 4 app 0 args ["first"] COLOR=red`,
		`rank 1 of 4 app 1 args ["second" "-x" "y"] COLOR=none`,
		`rank 2 of 4 app 1 args ["second" "-x" "y"] COLOR=none`,
		`rank 3 of 4 app 2 args ["third"] COLOR=blue`,
		`apps [0 1 1 2]`,
	} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, r.stdout, r.stderr)
		}
	}
}

// A job of one app context is app 0, and so is a singleton.
func TestAppNumOfOneContext(t *testing.T) {
	t.Parallel()
	r := run(t, "", nil, "--timeout", "60", "-np", "1", appprog)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "rank 0 of 1 app 0 args []") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	cmd := exec.Command(appprog)
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rank 0 of 1 app 0 args []") {
		t.Errorf("singleton: %v\n%s", err, out)
	}
}

// A malformed MPMD command line is refused before any rank starts, with
// what was wrong and in which app context.
func TestMPMDRefusals(t *testing.T) {
	t.Parallel()
	prog := []string{rankprog, "sleep"}
	ctx := func(args ...string) []string { return append(args, prog...) }
	join := func(parts ...[]string) []string {
		var out []string
		for i, p := range parts {
			if i > 0 {
				out = append(out, ":")
			}
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name    string
		args    []string
		message string
	}{
		{"empty context at the end", append(ctx("-np", "1"), ":"),
			`app context 2: empty: each ":" must be followed by -np N and a program`},
		{"empty context between", join(ctx("-np", "1"), nil, ctx("-np", "1")),
			`app context 2: empty: each ":" must be followed by -np N and a program`},
		{"empty first context", join(nil, ctx("-np", "1")),
			`app context 1: empty: each ":" must be followed by -np N and a program`},
		{"no program", join(ctx("-np", "1"), []string{"-np", "2"}),
			`app context 2: no program after "-np 2"`},
		{"no -np", join(ctx("-np", "1"), prog),
			`app context 2: -np N is required before ` + regexp.QuoteMeta(rankprog)},
		{"-np 0", join(ctx("-np", "1"), ctx("-np", "0")),
			`app context 2: -np 0: the number of ranks must be 1 or more`},
		{"job option in a later context", join(ctx("-np", "1"), ctx("-np", "1", "--tag-output")),
			`app context 2: --tag-output applies to the whole job: give it before the first program`},
		{"--mca in a later context", join(ctx("-np", "1"), ctx("-np", "1", "--mca", "btl", "tcp")),
			`app context 2: --mca applies to the whole job`},
		{"unknown flag in a later context", join(ctx("-np", "1"), ctx("-np", "1", "--frobnicate")),
			`app context 2: unknown flag: --frobnicate`},
		{"too many ranks in all", join(ctx("-np", "1"), ctx("-np", "4096")),
			`4097 ranks in all: this host has only \d+ CPUs available; add --oversubscribe`},
		{"missing program of a later context", join(ctx("-np", "1"), []string{"-np", "1", "/nonexistent/gompi-prog"}),
			`app context 2: program "/nonexistent/gompi-prog" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", nil, tt.args...)
			r.refused(t, tt.message)
		})
	}
}
