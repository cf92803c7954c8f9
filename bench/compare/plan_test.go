package compare

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/bench/osu"
	"github.com/gompi/gompi/bench/table"
)

// sizeFlags reads a plan's -m, -s, -i and -x as gompi-bench would.
func sizeFlags(t *testing.T, args []string) osu.Flags {
	t.Helper()
	var f osu.Flags
	for i := 0; i+1 < len(args); i += 2 {
		n, _ := strconv.Atoi(args[i+1])
		switch args[i] {
		case "-m":
			f.Range = args[i+1]
		case "-s":
			f.List = args[i+1]
		case "-i":
			f.Iters = &n
		case "-x":
			f.Warmup = &n
		default:
			t.Fatalf("unexpected flag %s", args[i])
		}
	}
	return f
}

func TestPlans(t *testing.T) {
	for _, quick := range []bool{false, true} {
		var names []string
		for _, p := range Plans(quick) {
			names = append(names, p.Name)
			if !slices.Contains(Programs, p.Prog) {
				t.Errorf("%s: no C program %s", p.Name, p.Prog)
			}
			if p.Name == "launch" {
				continue
			}
			m, err := osu.Lookup(p.Name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Options(sizeFlags(t, p.Args)); err != nil {
				t.Errorf("quick=%v %s: gompi-bench would refuse %v: %v", quick, p.Name, p.Args, err)
			}
			if err := m.CheckRanks(p.NP); err != nil {
				t.Errorf("quick=%v: %v", quick, err)
			}
		}
		if !slices.Equal(names, []string{"latency", "bw", "bibw", "multi-lat", "launch"}) {
			t.Errorf("quick=%v: plans %v", quick, names)
		}
	}
}

func TestCommands(t *testing.T) {
	ompi, mpich := OpenMPI(), MPICH()
	sides := Sides(ompi, mpich)
	paths := Paths{Gompirun: "bin/gompirun", Bench: "bin/gompi-bench", Build: "bench/build"}
	plans := Plans(true)
	lat, multi, launch := plans[0], plans[3], plans[4]
	over := []string{}
	if multi.NP > runtime.NumCPU() {
		over = []string{"--oversubscribe"}
	}
	for _, c := range []struct {
		side *Side
		plan Plan
		want []string
	}{
		{sides[0], lat, append([]string{"bin/gompirun", "-np", "2", "bin/gompi-bench", "latency"}, lat.Args...)},
		{sides[0], multi, append(append(append([]string{"bin/gompirun", "-np", "4"}, over...), "bin/gompi-bench", "multi-lat"), multi.Args...)},
		{sides[1], lat, append([]string{"mpirun.openmpi", "-np", "2", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
			"bench/build/openmpi/latency"}, lat.Args...)},
		{sides[2], multi, append(append(append([]string{"mpirun.openmpi", "-np", "4"}, over...), "--mca", "btl", "self,vader",
			"bench/build/openmpi/multi_lat"), multi.Args...)},
		{sides[3], lat, append([]string{"mpiexec.mpich", "-n", "2", "bench/build/mpich/latency"}, lat.Args...)},
		{sides[0], launch, append(append([]string{"bin/gompi-bench", "launch"}, launch.Args...), "--gompirun", "bin/gompirun")},
		{sides[3], launch, append(append([]string{"bin/gompi-bench", "launch"}, launch.Args...),
			"--", "mpiexec.mpich", "-n", "{np}", "bench/build/mpich/init_finalize")},
	} {
		if got := c.side.Command(c.plan, paths); !slices.Equal(got, c.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", c.side.Label, c.plan.Name, got, c.want)
		}
	}
	if why := sides[3].skips(multi); (why == "") != (multi.NP <= runtime.NumCPU()) {
		t.Errorf("MPICH and an oversubscribed plan: %q", why)
	}
	if got := shellQuote([]string{"a", "{np}", "it's"}); got != `a '{np}' 'it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// TestCPrograms builds bench/c against Open MPI, when it is installed, and
// checks that each program prints the table gompi-bench prints: the same
// unit, column and row keys, readable by the same parser.
func TestCPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs C programs")
	}
	lib := OpenMPI()
	if lib.missing() != "" {
		t.Skipf("Open MPI is not installed (%s)", lib.missing())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := Build(ctx, lib, "../c", dir); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	if err := Smoke(ctx, lib, dir, env); err != nil {
		t.Fatal(err)
	}
	mpirun := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, lib.Run, append([]string{"-np", "2", "--mca", "btl", "self,vader"}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		return string(out), err
	}
	for _, c := range []struct {
		prog, name string
		keys       []int
	}{
		{"latency", "latency", []int{0, 1, 2, 4}},
		{"bw", "bw", []int{1, 2, 4}},
		{"bibw", "bibw", []int{1, 2, 4}},
		{"multi_lat", "multi-lat", []int{0, 1, 2, 4}},
	} {
		out, err := mpirun(filepath.Join(dir, lib.Dir, c.prog), "-m", "0:4", "-i", "3", "-x", "1")
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.prog, err, out)
		}
		tb, err := table.Parse(strings.NewReader(out))
		if err == nil {
			err = tb.Check()
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.prog, err, out)
		}
		m, _ := osu.Lookup(c.name)
		if tb.Fields["unit"] != m.Unit+": "+m.About || tb.Column != m.Column || tb.Key != "Size" || tb.Fields["btl"] != "self,vader" {
			t.Errorf("%s: header differs from gompi-bench's: %+v", c.prog, tb)
		}
		if !slices.Equal(tb.Keys(), c.keys) || !strings.Contains(tb.Title, "Open MPI") {
			t.Errorf("%s: title %q keys %v", c.prog, tb.Title, tb.Keys())
		}
	}
	// A bad flag is reported once, with a non-zero status.
	if out, err := mpirun(filepath.Join(dir, lib.Dir, "latency"), "-m", "8:1"); err == nil {
		t.Errorf("latency -m 8:1 succeeded:\n%s", out)
	}
}
