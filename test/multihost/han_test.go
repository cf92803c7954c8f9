package multihost

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// buildHancheck builds hancheck where every host sees it (not under
// /tmp, which hosts built with PrivateTmp have their own of), for tb alone.
func buildHancheck(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "multihost_han")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	bins, err := jobtest.Build(dir, map[string]string{"hancheck": "./testdata/hancheck"})
	if err != nil {
		tb.Fatal(err)
	}
	return bins["hancheck"]
}

// hanCollectives are the collectives coll han provides.
var hanCollectives = []string{"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather"}

// TestHanAcrossHosts: on 3 hosts of 2 ranks, placed by host and round
// robin (--map-by node), coll han serves the world communicator's
// collectives (coll_base_verbose's table of every rank says so) and each
// result equals the serial one, for a commutative and a non-commutative
// operation (which, on the round robin placement, han passes to tuned),
// and for non-blocking calls outstanding together and a persistent one
// started twice, which han runs in start order.
func TestHanAcrossHosts(t *testing.T) {
	t.Parallel()
	bin := buildHancheck(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"by host", []string{"--host", "h1:2,h2:2,h3:2"}},
		{"map by node", []string{"--host", "h1:2,h2:2,h3:2", "--map-by", "node"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Up(t, 3, cluster.Options{})
			args := append(tc.args, "--mca", "coll_base_verbose", "debug", bin)
			r := runOn(t, c, "h1", args...)
			if r.code != 0 {
				t.Fatalf("the job failed\n%v", r)
			}
			for rank := range 6 {
				if !strings.Contains(r.stdout, fmt.Sprintf("rank %d ok\n", rank)) {
					t.Errorf("rank %d did not pass its checks\n%v", rank, r)
				}
			}
			chosen := regexp.MustCompile(`collectives chosen.*comm=MPI_COMM_WORLD .*providers="([^"]*)"`)
			tables := chosen.FindAllStringSubmatch(r.stdout+r.stderr, -1)
			if len(tables) != 6 {
				t.Fatalf("%d ranks logged the world's collectives, want 6\n%v", len(tables), r)
			}
			for _, m := range tables {
				for _, name := range hanCollectives {
					if !strings.Contains(" "+m[1]+" ", " "+name+"=han ") {
						t.Errorf("%s is not han's on the world communicator: %s", name, m[1])
					}
				}
			}
			checkClean(t, c)
		})
	}
}

// BenchmarkHanVsFlat times hancheck's collectives on 3 hosts of 2 ranks,
// with han and with every collective passed to tuned's flat algorithms,
// in alternating runs; it reports each collective's microseconds a call
// under both and their ratio (flat/han). The hosts' links add no delay of
// their own (every host is this machine), so a second run gives each
// host's link a delay (tc netem) as a network between hosts has; it is
// skipped where the kernel has no netem.
func BenchmarkHanVsFlat(b *testing.B) {
	for _, delay := range []string{"0", "100us"} {
		b.Run("delay="+delay, func(b *testing.B) { benchHanVsFlat(b, delay) })
	}
}

func benchHanVsFlat(b *testing.B, delay string) {
	bin := buildHancheck(b)
	c := cluster.Up(b, 3, cluster.Options{})
	if delay != "0" {
		for _, h := range c.Hosts() {
			if out, err := c.Command(h, "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", delay).CombinedOutput(); err != nil {
				b.Skipf("no link delay on %s: %v: %s", h, err, out)
			}
		}
	}
	var flat []string
	for _, name := range hanCollectives {
		flat = append(flat, "--mca", "coll_han_"+name+"_algorithm", "next")
	}
	line := regexp.MustCompile(`(?m)^time (\w+) ([\d.]+)$`)
	sums := map[string]*[2]float64{}
	for range b.N {
		for i, extra := range [][]string{nil, flat} {
			args := append([]string{"--timeout", "300", "--mca", "plm_rsh_agent", c.Agent(), "--host", "h1:2,h2:2,h3:2"}, extra...)
			out, err := c.Command("h1", gompirun, append(args, bin, "time", "500")...).CombinedOutput()
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			for _, m := range line.FindAllStringSubmatch(string(out), -1) {
				v, _ := strconv.ParseFloat(m[2], 64)
				if sums[m[1]] == nil {
					sums[m[1]] = &[2]float64{}
				}
				sums[m[1]][i] += v
			}
		}
	}
	for name, s := range sums {
		b.ReportMetric(s[0]/float64(b.N), name+"-han-us")
		b.ReportMetric(s[1]/float64(b.N), name+"-flat-us")
		b.ReportMetric(s[1]/s[0], name+"-flat/han")
	}
}
