package plugins_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

// The coll decision plugin's tests: mca_coll_rules (examples/plugins) on
// the component path of a 4-rank job that runs collectives on the world, a
// dup and a dup of the dup (testdata/collrules), with tuned's per-call
// trace on.

const (
	collJobTimeout = 120 * time.Second // gompirun's limit; a hang guard only
	collHangLimit  = collJobTimeout + 30*time.Second
)

// collBins are the programs a coll plugin job needs.
type collBins struct {
	gompirun, program, pluginDir, plugin string
}

func buildCollBins(t *testing.T) collBins {
	t.Helper()
	dir := t.TempDir()
	bins, err := jobtest.Build(dir, map[string]string{
		"gompirun":  "../../cmd/gompirun",
		"collrules": "./testdata/collrules",
	})
	if err != nil {
		t.Fatal(err)
	}
	pluginDir := filepath.Join(dir, "plugins")
	if err := os.Mkdir(pluginDir, 0o755); err != nil {
		t.Fatal(err)
	}
	plugins, err := jobtest.Build(pluginDir, map[string]string{"mca_coll_rules": "../../examples/plugins/mca_coll_rules"})
	if err != nil {
		t.Fatal(err)
	}
	return collBins{gompirun: bins["gompirun"], program: bins["collrules"], pluginDir: pluginDir, plugin: plugins["mca_coll_rules"]}
}

// run runs the program on 4 ranks with the plugin on the component path,
// the rules file and the program's mode.
func (b collBins) run(t *testing.T, rules, mode string, extra ...string) jobtest.Job {
	t.Helper()
	// Waiting ranks yield on every machine, 2 CPUs or 64, so the built-in
	// decisions the tests expect are always those for ranks sharing CPUs.
	// coll sm would take the small calls whose decisions they check.
	args := []string{"--timeout", fmt.Sprint(int(collJobTimeout.Seconds())), "-np", "4", "--oversubscribe",
		"--mca", "mca_base_component_path", b.pluginDir, "--mca", "coll_rules_file", rules,
		"--mca", "coll_base_verbose", "trace", "--mca", "btl", "self,sm", "--mca", "mpi_yield_when_idle", "yes",
		"--mca", "coll_sm_max_bytes", "0"}
	args = append(args, extra...)
	args = append(args, b.program)
	if mode != "" {
		args = append(args, mode)
	}
	j := jobtest.Run(t, b.gompirun, collHangLimit, nil, args...)
	if j.Code == 124 {
		t.Fatalf("hung: gompirun's --timeout ended the job\n%v", j)
	}
	noStrayPlugins(t, b.pluginDir)
	return j
}

var (
	collTraceRE = regexp.MustCompile(`collective: rank=(\d+) collective=(\w+) algorithm=(\w+) decision=(\S+) bytes=(\d+) comm=(\S+)`)
	collRankRE  = regexp.MustCompile(`\brank=(\d+)`)
	collCommRE  = regexp.MustCompile(`\bcomm=(\S+)`)
)

// collChoices maps "rank comm collective bytes" to "algorithm decision"
// from tuned's trace lines.
func collChoices(out string) map[string]string {
	m := map[string]string{}
	for _, s := range collTraceRE.FindAllStringSubmatch(out, -1) {
		m[fmt.Sprintf("%s %s %s %s", s[1], s[6], s[2], s[5])] = s[3] + " " + s[4]
	}
	return m
}

// rulesAsked counts the plugin's "rules asked" lines by "rank comm".
func rulesAsked(out string) map[string]int {
	n := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "rules asked") {
			continue
		}
		r, c := collRankRE.FindStringSubmatch(line), collCommRE.FindStringSubmatch(line)
		if r != nil && c != nil {
			n[r[1]+" "+c[1]]++
		}
	}
	return n
}

// wantChoices checks the algorithm and decision of bcast (8000 bytes),
// allreduce (32768) and gather (8) on comm at every rank.
func wantChoices(t *testing.T, out, comm, bcast, allreduce, gather string) {
	t.Helper()
	got := collChoices(out)
	for r := range 4 {
		for _, w := range []struct{ key, want string }{
			{fmt.Sprintf("%d %s bcast 8000", r, comm), bcast},
			{fmt.Sprintf("%d %s allreduce 32768", r, comm), allreduce},
			{fmt.Sprintf("%d %s gather 8", r, comm), gather},
		} {
			if got[w.key] != w.want {
				t.Errorf("%s: traced %q, want %q", w.key, got[w.key], w.want)
			}
		}
	}
}

func wantAllOK(t *testing.T, j jobtest.Job) {
	t.Helper()
	if j.Code != 0 || strings.Count(j.Stdout, "ok rank") != 4 || strings.Contains(j.Stderr, "FAIL") {
		t.Fatalf("the job failed\n%v", j)
	}
}

func TestCollRulesPlugin(t *testing.T) {
	b := buildCollBins(t)
	rules, _ := filepath.Abs("testdata/collrules/rules.txt")

	t.Run("rules choose the algorithm, asked once per communicator", func(t *testing.T) {
		j := b.run(t, rules, "")
		wantAllOK(t, j)
		out := j.Stdout + j.Stderr
		for _, comm := range []string{"MPI_COMM_WORLD", "MPI_COMM_WORLD.dup", "MPI_COMM_WORLD.dup.dup"} {
			wantChoices(t, out, comm, "linear rules", "ring rules", "binomial built-in")
		}
		asked := rulesAsked(out)
		for r := range 4 {
			for _, comm := range []string{"MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_WORLD.dup", "MPI_COMM_WORLD.dup.dup"} {
				if n := asked[fmt.Sprintf("%d %s", r, comm)]; n != 1 {
					t.Errorf("rank %d asked the plugin for the rules of %s %d times, want once", r, comm, n)
				}
			}
		}
		if t.Failed() {
			t.Logf("%v", j)
		}
	})

	t.Run("a bad rules file names its line", func(t *testing.T) {
		bad, _ := filepath.Abs("testdata/collrules/bad.txt")
		j := b.run(t, bad, "", "--mca", "coll", "rules,tuned,basic,self")
		out := j.Stdout + j.Stderr
		if j.Code == 0 {
			t.Fatalf("the job succeeded with a bad rules file\n%v", j)
		}
		for _, want := range []string{bad + ":2: ", `unknown collective "scatterr"`, "collective ranks bytes algorithm [segsize]"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q\n%v", want, j)
			}
		}
	})

	t.Run("killed plugins fall back to the built-in decision", func(t *testing.T) {
		j := b.run(t, rules, "kill")
		wantAllOK(t, j)
		out := j.Stdout + j.Stderr
		wantChoices(t, out, "MPI_COMM_WORLD.dup", "linear rules", "ring rules", "binomial built-in")
		wantChoices(t, out, "MPI_COMM_WORLD.dup.dup", "linear built-in", "reduce_bcast built-in", "binomial built-in")
		if n := strings.Count(out, b.plugin+": rules for MPI_COMM_WORLD.dup.dup"); n != 4 {
			t.Errorf("%d ranks reported their dead plugin with its path, want 4\n%v", n, j)
		}
	})

	t.Run("one killed plugin takes every rank to the built-in decision", func(t *testing.T) {
		j := b.run(t, rules, "kill-one")
		wantAllOK(t, j)
		out := j.Stdout + j.Stderr
		wantChoices(t, out, "MPI_COMM_WORLD.dup.dup", "linear built-in", "reduce_bcast built-in", "binomial built-in")
		if n := strings.Count(out, b.plugin+": rules for"); n != 1 {
			t.Errorf("%d reports of a dead plugin, want 1 (rank 1's)\n%v", n, j)
		}
	})
}
