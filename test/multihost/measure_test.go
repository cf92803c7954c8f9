package multihost

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// measure runs TestMeasureAcrossHosts: gompi beside Open MPI and MPICH on
// the simulated hosts. It prints figures and checks nothing: go test
// ./test/multihost -run Measure -measure -v.
var (
	measure       = flag.Bool("measure", false, "measure gompi, Open MPI and MPICH across simulated hosts (prints a table)")
	measureOnly   = flag.String("measure-only", "", "with -measure, only the runs whose library and measure (as in \"MPICH latency 8 B, us\") match this regular expression")
	measureRounds = flag.Int("measure-rounds", 3, "with -measure, how many rounds the libraries take in turn")
)

// library is one MPI's way of running the benchmarks on the cluster.
type library struct {
	name string
	// cmd is the launch of np ranks of prog (an OSU-style benchmark name
	// or "init") with args, over hosts.
	cmd func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd
}

// TestMeasureAcrossHosts prints, for 3 rounds in alternation, the
// latency and bandwidth between two hosts, allreduce and bcast on 3 hosts
// x 2 ranks, and the wall time of launching Init and Finalize on 3 and 8
// hosts, for each library, and the ratios of gompi to the better other.
func TestMeasureAcrossHosts(t *testing.T) {
	if !*measure {
		t.Skip("a measurement, not a test: run it with -measure")
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
	cprog := func(cc, name string) string {
		out := filepath.Join(dir, cc+"-"+name)
		src := filepath.Join("../../bench/c", strings.ReplaceAll(name, "-", "_")+".c")
		if b, err := exec.Command(cc, "-O2", "-o", out, src, "-lm").CombinedOutput(); err != nil {
			t.Skipf("%s %s: %v\n%s", cc, src, err, b)
		}
		return out
	}
	env := []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}
	libs := []library{
		{"gompi", func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
			if prog == "init" {
				prog = "init-finalize"
			}
			a := append([]string{"--host", hosts, "-np", fmt.Sprint(np), "--mca", "plm_rsh_agent", c.Agent(), bins["gompi-bench"], prog}, args...)
			return c.Command("h1", gompirun, a...)
		}},
		{"Open MPI", func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
			if prog == "init" {
				prog = "init-finalize"
			}
			a := append([]string{"--host", hosts, "-np", fmt.Sprint(np), "--mca", "plm_rsh_agent", c.Agent(),
				"--mca", "btl", "self,vader,tcp", "--bind-to", "none", cprog("mpicc.openmpi", prog)}, args...)
			cmd := c.Command("h1", "mpirun.openmpi", a...)
			cmd.Env = append(os.Environ(), env...)
			return cmd
		}},
		{"MPICH", func(c *cluster.Cluster, hosts string, np int, prog string, args ...string) *exec.Cmd {
			if prog == "init" {
				prog = "init-finalize"
			}
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
	c := cluster.Up(t, 8, cluster.Options{})
	type key struct{ what, lib string }
	results := map[key][]float64{}
	row := regexp.MustCompile(`(?m)^(\d+)\s+([0-9.]+)`)
	failed := map[key]bool{}
	only, err := regexp.Compile(*measureOnly)
	if err != nil {
		t.Fatalf("-measure-only: %v", err)
	}
	run := func(what string, lib library, cmd *exec.Cmd, size string) {
		if !only.MatchString(lib.name + " " + what) {
			return
		}
		if failed[key{what, lib.name}] {
			return // it failed in an earlier round
		}
		// A run that takes more than a minute is left out (MPICH's
		// collectives on ranks that share CPUs can take many).
		timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
		defer timer.Stop()
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			t.Logf("%s %s: %v\n%.3000s", lib.name, what, err, out)
			failed[key{what, lib.name}] = true
			return
		}
		if size == "" {
			results[key{what, lib.name}] = append(results[key{what, lib.name}], float64(wall.Microseconds())/1000)
			return
		}
		for _, m := range row.FindAllStringSubmatch(string(out), -1) {
			if m[1] == size {
				v, _ := strconv.ParseFloat(m[2], 64)
				results[key{what, lib.name}] = append(results[key{what, lib.name}], v)
			}
		}
	}
	for range *measureRounds {
		for _, lib := range libs {
			run("latency 8 B, us", lib, lib.cmd(c, "h1,h2", 2, "latency", "-s", "8"), "8")
			run("latency 64 KiB, us", lib, lib.cmd(c, "h1,h2", 2, "latency", "-s", "65536"), "65536")
			run("bandwidth 1 MiB, MB/s", lib, lib.cmd(c, "h1,h2", 2, "bw", "-s", "1048576"), "1048576")
			// 6 ranks on this machine's 2 CPUs: few calls, since MPICH's
			// ranks poll without yielding.
			few := []string{"-i", "100", "-x", "10"}
			run("allreduce 8 B 3x2, us", lib, lib.cmd(c, "h1:2,h2:2,h3:2", 6, "allreduce", append([]string{"-s", "8"}, few...)...), "8")
			run("allreduce 64 KiB 3x2, us", lib, lib.cmd(c, "h1:2,h2:2,h3:2", 6, "allreduce", append([]string{"-s", "65536"}, few...)...), "65536")
			run("bcast 64 KiB 3x2, us", lib, lib.cmd(c, "h1:2,h2:2,h3:2", 6, "bcast", append([]string{"-s", "65536"}, few...)...), "65536")
			run("launch 3 hosts, ms", lib, lib.cmd(c, "h1,h2,h3", 3, "init"), "")
			run("launch 8 hosts, ms", lib, lib.cmd(c, strings.Join(c.Hosts(), ","), 8, "init"), "")
		}
	}
	var whats []string
	for k := range results {
		if k.lib == "gompi" {
			whats = append(whats, k.what)
		}
	}
	sort.Strings(whats)
	median := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		if len(s) == 0 {
			return 0
		}
		return s[len(s)/2]
	}
	fmt.Printf("| measure | gompi | Open MPI | MPICH | gompi / better |\n|---|---|---|---|---|\n")
	for _, w := range whats {
		g, o, m := median(results[key{w, "gompi"}]), median(results[key{w, "Open MPI"}]), median(results[key{w, "MPICH"}])
		better, ratio := o, 0.0
		higherBetter := strings.Contains(w, "MB/s")
		if m > 0 && (o == 0 || (higherBetter && m > o) || (!higherBetter && m < o)) {
			better = m
		}
		if better > 0 {
			ratio = g / better
			if higherBetter {
				ratio = better / g
			}
		}
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", w, g, o, m, ratio)
		for _, lib := range libs {
			t.Logf("%s, %s: %v", w, lib.name, results[key{w, lib.name}])
		}
	}
}
