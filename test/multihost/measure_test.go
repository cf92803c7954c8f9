package multihost

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/bench/compare/across"
	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// measure runs TestMeasureAcrossHosts: gompi beside Open MPI and MPICH on
// the simulated hosts. It prints figures and checks nothing: go test
// ./test/multihost -run Measure -measure -v. make bench-compare runs it
// with -measure-json and puts the figures in docs/performance.md.
var (
	measure       = flag.Bool("measure", false, "measure gompi, Open MPI and MPICH across simulated hosts (prints a table)")
	measureOnly   = flag.String("measure-only", "", "with -measure, only the runs whose library and measure (as in \"MPICH latency 8 B\") match this regular expression")
	measureRounds = flag.Int("measure-rounds", 3, "with -measure, how many rounds the libraries take in turn")
	measureJSON   = flag.String("measure-json", "", "with -measure, also write every run's figure to this file as JSON (bench/compare/across reads it)")
)

// measureHosts is the size of the cluster; the launch on all of them is
// the largest job.
const measureHosts = 8

// library is one MPI's way of running the benchmarks on the cluster.
type library struct {
	across.Library
	// cmd is the launch of np ranks of prog (an OSU-style benchmark name
	// or "init") with args, over hosts.
	cmd func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd
}

// measurement is one measure and the job that gives it: the figure is
// the row of size in the job's table, or, without a size, the job's wall
// time in ms.
type measurement struct {
	across.Measure
	hosts string // --host; "all" for every host of the cluster
	np    int
	prog  string
	args  []string
	size  string
}

// measurements are the measures: latency and bandwidth between two
// hosts, allreduce and bcast on 3 hosts x 2 ranks, and the launch of Init
// and Finalize on 3 and on all hosts. 6 ranks on this machine's 2 CPUs
// make few calls, since MPICH's ranks poll without yielding.
func measurements() []measurement {
	few := []string{"-i", "100", "-x", "10"}
	pair, threeByTwo := "h1 and h2, 1 rank each", "h1, h2 and h3, 2 ranks each"
	m := func(name, unit, setup, hosts string, np int, prog string, args []string, size string) measurement {
		how := strings.TrimSpace(prog + " " + strings.Join(args, " "))
		if prog == "init" {
			how = "Init and Finalize, the launcher's wall time"
		}
		return measurement{Measure: across.Measure{Name: name, Unit: unit, Higher: unit == "MB/s", Setup: setup + ": " + how},
			hosts: hosts, np: np, prog: prog, args: args, size: size}
	}
	return []measurement{
		m("latency 8 B", "us", pair, "h1,h2", 2, "latency", []string{"-s", "8"}, "8"),
		m("latency 64 KiB", "us", pair, "h1,h2", 2, "latency", []string{"-s", "65536"}, "65536"),
		m("bandwidth 1 MiB", "MB/s", pair, "h1,h2", 2, "bw", []string{"-s", "1048576"}, "1048576"),
		m("allreduce 8 B 3x2", "us", threeByTwo, "h1:2,h2:2,h3:2", 6, "allreduce", append([]string{"-s", "8"}, few...), "8"),
		m("allreduce 64 KiB 3x2", "us", threeByTwo, "h1:2,h2:2,h3:2", 6, "allreduce", append([]string{"-s", "65536"}, few...), "65536"),
		m("bcast 64 KiB 3x2", "us", threeByTwo, "h1:2,h2:2,h3:2", 6, "bcast", append([]string{"-s", "65536"}, few...), "65536"),
		m("launch 3 hosts", "ms", "h1, h2 and h3, 1 rank each", "h1,h2,h3", 3, "init", nil, ""),
		m("launch 8 hosts", "ms", "h1 to h8, 1 rank each", "all", measureHosts, "init", nil, ""),
	}
}

// measureTimeout cuts a run short (MPICH's collectives on ranks that
// share CPUs can take many minutes); the run then counts as failed.
const measureTimeout = time.Minute

// TestMeasureAcrossHosts measures, for -measure-rounds rounds in which
// the libraries take turns, each of measurements() for each library, and
// prints every measure's medians and the ratio of gompi to the better
// other.
func TestMeasureAcrossHosts(t *testing.T) {
	if !*measure {
		t.Skip("a measurement, not a test: run it with -measure")
	}
	if *measureRounds < 1 {
		t.Fatalf("-measure-rounds %d: want 1 or more", *measureRounds)
	}
	only, err := regexp.Compile(*measureOnly)
	if err != nil {
		t.Fatalf("-measure-only: %v", err)
	}
	// A skip is written down too, so that bench/compare can say why
	// (TestMain prints its own, where no hosts can be built).
	skip := func(format string, args ...any) {
		t.Helper()
		why := fmt.Sprintf(format, args...)
		if *measureJSON != "" {
			if err := (&across.Results{Skipped: why}).Write(*measureJSON); err != nil {
				t.Error(err)
			}
		}
		t.Skip(why)
	}
	dir, err := os.MkdirTemp("/var/tmp", "multihost_measure")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bins, err := jobtest.Build(dir, map[string]string{"gompi-bench": "../../bench/cmd/gompi-bench"})
	if err != nil {
		t.Fatal(err)
	}
	// The C programs of the libraries that -measure-only leaves in: a
	// comparison without MPICH needs no MPICH installed.
	compilers := map[string]string{"Open MPI": "mpicc.openmpi", "MPICH": "mpicc.mpich"}
	cprogs := map[string]string{}
	for _, lib := range []string{"Open MPI", "MPICH"} {
		if !slices.ContainsFunc(measurements(), func(m measurement) bool { return only.MatchString(lib + " " + m.Name) }) {
			continue
		}
		cc := compilers[lib]
		for _, name := range []string{"latency", "bw", "allreduce", "bcast", "init_finalize"} {
			out := filepath.Join(dir, cc+"-"+name)
			src := filepath.Join("../../bench/c", name+".c")
			if b, err := exec.Command(cc, "-O2", "-o", out, src, "-lm").CombinedOutput(); err != nil {
				skip("%s %s: %v\n%s", cc, src, err, b)
			}
			cprogs[cc+" "+name] = out
		}
	}
	cprog := func(cc, prog string) string {
		if prog == "init" {
			prog = "init_finalize"
		}
		return cprogs[cc+" "+prog]
	}
	env := []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}
	libs := []library{
		{across.Library{Name: across.Gompi, About: "`gompirun --host H` with its defaults (sm within a host, tcp between hosts), gompi-bench"},
			func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
				if prog == "init" {
					prog = "init-finalize"
				}
				a := append([]string{"--host", hosts, "-np", fmt.Sprint(np), "--mca", "plm_rsh_agent", c.Agent(), bins["gompi-bench"], prog}, args...)
				return c.Command("h1", gompirun, a...)
			}},
		{across.Library{Name: "Open MPI", About: "`mpirun.openmpi --host H --mca btl self,vader,tcp --bind-to none`, bench/c built with mpicc.openmpi"},
			func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
				a := append([]string{"--host", hosts, "-np", fmt.Sprint(np), "--mca", "plm_rsh_agent", c.Agent(),
					"--mca", "btl", "self,vader,tcp", "--bind-to", "none", cprog("mpicc.openmpi", prog)}, args...)
				cmd := c.Command("h1", "mpirun.openmpi", a...)
				cmd.Env = append(os.Environ(), env...)
				return cmd
			}},
		{across.Library{Name: "MPICH", About: "`mpiexec.mpich -hosts H -launcher rsh` (Hydra), bench/c built with mpicc.mpich"},
			func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
				var spec []string
				for _, h := range strings.Split(hosts, ",") {
					name, slots, _ := strings.Cut(h, ":")
					if slots == "" {
						slots = "1"
					}
					spec = append(spec, name+":"+slots)
				}
				a := append([]string{"-hosts", strings.Join(spec, ","), "-n", fmt.Sprint(np), "-launcher", "rsh", "-launcher-exec", c.Agent(),
					cprog("mpicc.mpich", prog)}, args...)
				return c.Command("h1", "mpiexec.mpich", a...)
			}},
	}
	var ms []measurement
	for _, m := range measurements() {
		for _, lib := range libs {
			if only.MatchString(lib.Name + " " + m.Name) {
				ms = append(ms, m)
				break
			}
		}
	}
	res := &across.Results{Rounds: *measureRounds, Hosts: measureHosts}
	for _, lib := range libs {
		res.Libraries = append(res.Libraries, lib.Library)
	}
	for _, m := range ms {
		res.Measures = append(res.Measures, m.Measure)
	}
	c := cluster.Up(t, measureHosts, cluster.Options{})
	failed := map[[2]string]bool{} // (measure, library)
	for round := 1; round <= *measureRounds; round++ {
		for _, m := range ms {
			for _, lib := range libs {
				if !only.MatchString(lib.Name+" "+m.Name) || failed[[2]string{m.Name, lib.Name}] {
					continue // left out, or it failed in an earlier round
				}
				hosts := m.hosts
				if hosts == "all" {
					hosts = strings.Join(c.Hosts(), ",")
				}
				run := across.Run{Measure: m.Name, Library: lib.Name, Round: round}
				run.Value, err = figure(lib.cmd(c, hosts, m.np, m.prog, m.args...), m.size)
				if err != nil {
					run.Error = err.Error()
					failed[[2]string{m.Name, lib.Name}] = true
					t.Logf("round %d, %s, %s: %v", round, m.Name, lib.Name, err)
				} else {
					t.Logf("round %d, %s, %s: %g %s", round, m.Name, lib.Name, run.Value, m.Unit)
				}
				res.Runs = append(res.Runs, run)
			}
		}
	}
	fmt.Print(markdown(res))
	if *measureJSON != "" {
		if err := res.Write(*measureJSON); err != nil {
			t.Error(err)
		}
	}
}

// row is a line of a benchmark's table: size, then the figure.
var row = regexp.MustCompile(`(?m)^(\d+)\s+([0-9.]+)`)

// figure runs cmd within measureTimeout and returns the figure at size
// in its table or, without a size, its wall time in ms.
func figure(cmd *exec.Cmd, size string) (float64, error) {
	var cut atomic.Bool
	timer := time.AfterFunc(measureTimeout, func() {
		cut.Store(true)
		cmd.Process.Kill()
	})
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	timer.Stop()
	switch {
	case cut.Load():
		return 0, fmt.Errorf("did not finish within %v", measureTimeout)
	case err != nil:
		return 0, fmt.Errorf("%v\n%.3000s", err, out)
	case size == "":
		return float64(wall.Microseconds()) / 1000, nil
	}
	for _, m := range row.FindAllStringSubmatch(string(out), -1) {
		if m[1] == size {
			return strconv.ParseFloat(m[2], 64)
		}
	}
	return 0, errors.New("no row for size " + size + " in its output:\n" + string(out))
}

// markdown is the table the test prints: every measure's medians and
// gompi's ratio to the better other.
func markdown(res *across.Results) string {
	var b strings.Builder
	b.WriteString("| measure |")
	for _, l := range res.Libraries {
		fmt.Fprintf(&b, " %s |", l.Name)
	}
	b.WriteString(" gompi / better |\n|---|" + strings.Repeat("---|", len(res.Libraries)) + "---|\n")
	for _, c := range res.Compare() {
		fmt.Fprintf(&b, "| %s, %s |", c.Measure.Name, c.Measure.Unit)
		for _, l := range res.Libraries {
			if v, ok := c.Median[l.Name]; ok {
				fmt.Fprintf(&b, " %.2f |", v)
			} else {
				b.WriteString(" - |")
			}
		}
		fmt.Fprintf(&b, " %.2f |\n", c.Ratio)
	}
	return b.String()
}
