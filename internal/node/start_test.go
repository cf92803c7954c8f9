package node

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gompi/gompi/internal/cpuset"
)

func TestResolveProgram(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(name, first string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(first+"\necho hi\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct{ name, want string }{
		{script("badinterp", "#!/nonexistent/interp -x"), `program "` + dir + `/badinterp": its interpreter /nonexistent/interp does not exist`},
		{script("dirinterp", "#! "+dir), "its interpreter " + dir + " is a directory"},
		{script("plaininterp", "#!"+plain), "its interpreter " + plain + " is not executable"},
		{"gompi-no-such-program", `program "gompi-no-such-program" not found in $PATH`},
		{filepath.Join(dir, "missing"), "does not exist"},
		{plain, "is not executable"},
		{dir, "is a directory"},
	}
	for _, tt := range tests {
		_, err := ResolveProgram("", tt.name, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ResolveProgram(%q) = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	for _, first := range []string{"#!/bin/sh", "#! /bin/sh -e", "#!sh", "echo no interpreter line"} {
		if _, err := ResolveProgram("", script("good", first), nil); err != nil {
			t.Errorf("a script starting %q: %v", first, err)
		}
	}
	p, err := ResolveProgram("", "sh", []string{"-c", "true"})
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.Path) || !slices.Equal(p.Argv, []string{"sh", "-c", "true"}) {
		t.Fatalf("ResolveProgram(sh) = %+v", p)
	}
}

func TestCommand(t *testing.T) {
	p := Program{Path: "/bin/prog", Argv: []string{"prog", "-a"}}
	cmd := p.Command([]string{"A=1"}, RankIO{})
	if cmd.Path != "/bin/prog" || !slices.Equal(cmd.Args, p.Argv) || cmd.Stdin != nil {
		t.Fatalf("command: %s %q, stdin %v", cmd.Path, cmd.Args, cmd.Stdin)
	}
	if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Fatalf("SysProcAttr %+v: want Setpgid and Pdeathsig SIGKILL", cmd.SysProcAttr)
	}
}

// TestStartRankBinds: a bound rank inherits the mask of the thread that forked it.
func TestStartRankBinds(t *testing.T) {
	cpus, err := cpuset.Allowed()
	if err != nil {
		t.Fatal(err)
	}
	last := cpus[len(cpus)-1]
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	cmd.Stdout = &out
	exited := make(chan struct{})
	if _, err := StartRank(cmd, []int{last}, func(int, syscall.WaitStatus) { close(exited) }); err != nil {
		t.Fatal(err)
	}
	<-exited
	if want := fmt.Sprintf("Cpus_allowed_list:\t%d\n", last); out.String() != want {
		t.Errorf("the rank's mask: %q, want %q", out.String(), want)
	}
	if got, err := cpuset.Allowed(); err != nil || !slices.Equal(got, cpus) {
		t.Errorf("gompirun's own mask after binding a rank: %v, %v; want %v", got, err, cpus)
	}
}

// A relative program path is looked up in the ranks' directory on another
// host, and keeps the name the user gave as argv[0].
func TestResolveProgramInDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "x"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := ResolveProgram(dir, "bin/x", []string{"a"})
	if err != nil || p.Path != filepath.Join(dir, "bin", "x") || p.Argv[0] != "bin/x" || p.Argv[1] != "a" {
		t.Errorf("ResolveProgram = %+v, %v", p, err)
	}
	if _, err := ResolveProgram(dir, "bin/y", nil); err == nil || !strings.Contains(err.Error(), `program "bin/y" does not exist`) {
		t.Errorf("a missing program: %v", err)
	}
}
