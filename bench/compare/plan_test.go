package compare

import (
	"context"
	"fmt"
	"math"
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
	for i := 0; i < len(args); i += 2 {
		if args[i] == "-c" {
			f.Cold = true
			i--
			continue
		}
		if i+1 == len(args) {
			t.Fatalf("flag %s without its value", args[i])
		}
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
		keys := map[string]bool{}
		for _, p := range Plans(quick) {
			names = append(names, p.Key())
			if keys[p.Key()] {
				t.Errorf("quick=%v: two plans are keyed %s", quick, p.Key())
			}
			keys[p.Key()] = true
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
		want := []string{"latency", "ddt", "bw", "bibw", "multi-lat", "incast", "ring-8", "ring-16"}
		if quick {
			want = slices.DeleteFunc(want, func(k string) bool { return k == "ring-16" })
		}
		for _, c := range []string{"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"} {
			want = append(want, c+"-2", c+"-4", c+"-8")
		}
		want = append(want, "neighbor-allgather-2", "neighbor-allgather-4", "neighbor-allgather-8",
			"neighbor-alltoall-2", "neighbor-alltoall-4", "neighbor-alltoall-8")
		for _, c := range []string{"iallreduce", "ibcast", "ialltoall"} {
			want = append(want, c+"-2", c+"-2-overlap", c+"-4", c+"-4-overlap")
		}
		for _, c := range []string{"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"} {
			for _, np := range []string{"2", "4", "8"} {
				want = append(want, c+"-"+np+"-cold20", c+"-"+np+"-cold100")
			}
		}
		want = append(want, "launch")
		if !slices.Equal(names, want) {
			t.Errorf("quick=%v: plans %v, want %v", quick, names, want)
		}
	}
}

// TestCollectivePlans: the collectives run on shared memory only, a plot
// for each at 8 ranks (barrier has one row: no plot), keyed by rank count
// for barrier.
func TestCollectivePlans(t *testing.T) {
	var plots []string
	for _, p := range Plans(true) {
		coll := slices.Contains([]string{"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"}, p.Name) ||
			p.Group == "nbc" || p.Group == "neighbor"
		id := fmt.Sprintf("%s-%d", p.Name, p.NP)
		prog := strings.ReplaceAll(p.Name, "-", "_") // neighbor-allgather's is neighbor_allgather
		switch {
		case p.Cold > 0:
			id = fmt.Sprintf("%s-%d-cold%d", p.Name, p.NP, p.Cold)
		case p.Column > 0:
			id += "-overlap"
		}
		if p.SMOnly != coll || coll && (p.Prog != prog || p.ID != id) {
			t.Errorf("%s: SMOnly %v, program %s", p.Key(), p.SMOnly, p.Prog)
		}
		if p.Plot != "" {
			plots = append(plots, p.Plot)
			if p.SMOnly && p.NP != 8 {
				t.Errorf("%s is plotted, not at 8 ranks", p.Key())
			}
		}
	}
	if want := []string{"latency", "bandwidth", "bibw", "multi-lat", "incast", "bcast", "reduce", "allreduce", "allgather", "alltoall"}; !slices.Equal(plots, want) {
		t.Errorf("plots %v, want %v", plots, want)
	}
	plans := Plans(false)
	barrier, allreduce := plan(t, plans, "barrier-4"), plan(t, plans, "allreduce-8")
	if barrier.KeyName() != "ranks" || barrier.FormatKey(4096) != "4096" || allreduce.KeyName() != "size" || allreduce.FormatKey(4096) != "4 KiB" {
		t.Errorf("keys: barrier %s %s, allreduce %s %s", barrier.KeyName(), barrier.FormatKey(4096), allreduce.KeyName(), allreduce.FormatKey(4096))
	}
	if o, err := osu.Lookup("allreduce"); err != nil || o.MinSize != 4 || !slices.Equal(allreduce.Args, []string{"-m", "4:1M"}) {
		t.Errorf("allreduce-8: %v, %v", allreduce.Args, err)
	}
	var goals []string
	for _, g := range Goals() {
		if g.Side == GompiCLabel {
			continue // TestCGoals
		}
		if strings.Contains(g.Plan, "-") && !strings.HasPrefix(g.Plan, "ring-") && !strings.HasPrefix(g.Plan, "multi-") &&
			!strings.HasPrefix(g.Plan, "iall") && !strings.HasPrefix(g.Plan, "ibcast") && !strings.HasPrefix(g.Plan, "neighbor-") {
			goals = append(goals, g.Plan)
			if g.Side != "gompi sm" || g.From != 0 || g.To != math.MaxInt {
				t.Errorf("goal %+v", g)
			}
		}
	}
	if len(goals) != 54 || goals[0] != "barrier-2" || goals[17] != "alltoall-8" || goals[18] != "barrier-2-cold20" ||
		goals[53] != "alltoall-8-cold100" {
		t.Errorf("collective goals %v", goals)
	}
}

// TestColdPlans: the first 20 and the first 100 calls of every collective
// on 2, 4 and 8 ranks, each size on a fresh communicator (-c), the same
// count at every size, no plot; gompi-bench takes their flags as cold.
func TestColdPlans(t *testing.T) {
	for _, quick := range []bool{false, true} {
		n := 0
		for _, p := range Plans(quick) {
			if p.Cold == 0 {
				continue
			}
			n++
			if !p.SMOnly || p.Plot != "" || !slices.Contains(ColdCalls, p.Cold) {
				t.Errorf("%s: SMOnly %v, plot %q, cold %d", p.Key(), p.SMOnly, p.Plot, p.Cold)
			}
			m, err := osu.Lookup(p.Name)
			if err != nil {
				t.Fatal(err)
			}
			o, err := m.Options(sizeFlags(t, p.Args))
			if err != nil || !o.Cold {
				t.Fatalf("quick=%v %s: %v: cold %v, %v", quick, p.Key(), p.Args, o.Cold, err)
			}
			for _, size := range append(o.Sizes, 0) {
				if iters, warm := o.For(size); iters != p.Cold || warm != 0 {
					t.Errorf("%s at %d bytes: %d calls after %d, want the first %d", p.Key(), size, iters, warm, p.Cold)
				}
			}
			if quick && p.Name != "barrier" && o.MaxSize() != 256<<10 || !quick && p.Name != "barrier" && o.MaxSize() != 1<<20 {
				t.Errorf("quick=%v %s: sizes %v", quick, p.Key(), o.Sizes)
			}
		}
		if n != 36 {
			t.Errorf("quick=%v: %d cold plans, want 36", quick, n)
		}
	}
	p := plan(t, Plans(true), "allgather-4-cold20")
	if want := []string{"-s", "1,64,1K,16K,256K", "-i", "20", "-c"}; !slices.Equal(p.Args, want) || p.NP != 4 || p.Prog != "allgather" {
		t.Errorf("allgather-4-cold20: %v on %d ranks, program %s", p.Args, p.NP, p.Prog)
	}
}

// TestNeighbourPlans: the neighbourhood collectives at every collective
// rank count, on shared memory only, in the neighbor group, with the
// collectives' sizes, held to Open MPI's time at every size.
func TestNeighbourPlans(t *testing.T) {
	var keys []string
	for _, p := range Plans(false) {
		if p.Group != "neighbor" {
			continue
		}
		keys = append(keys, p.Key())
		if !p.SMOnly || p.Prog != strings.ReplaceAll(p.Name, "-", "_") || !slices.Equal(p.Args, []string{"-m", "1:1M"}) || p.Plot != "" {
			t.Errorf("%s: %+v", p.Key(), p)
		}
		i := slices.IndexFunc(Goals(), func(g Goal) bool { return g.Plan == p.Key() })
		if g := Goals()[max(i, 0)]; i < 0 || g.Side != "gompi sm" || g.From != 0 || g.To != math.MaxInt || g.AtLeast != 0 {
			t.Errorf("%s: goal %+v", p.Key(), g)
		}
	}
	if want := []string{"neighbor-allgather-2", "neighbor-allgather-4", "neighbor-allgather-8",
		"neighbor-alltoall-2", "neighbor-alltoall-4", "neighbor-alltoall-8"}; !slices.Equal(keys, want) {
		t.Errorf("neighbor plans %v, want %v", keys, want)
	}
}

// TestNBCPlans: each non-blocking collective on 2 and 4 ranks, on
// shared memory only, in the nbc group, as a plan of its pure latency and
// one of its overlap that run the same command and read another column,
// the column gompi-bench heads Overlap(%); their goals hold the pure
// latency to Open MPI's and the overlap to 90 %.
func TestNBCPlans(t *testing.T) {
	sides := Sides(OpenMPI(), MPICH(), nil, true)
	paths := Paths{Gompirun: "gompirun", Bench: "gompi-bench", Build: "build"}
	for _, quick := range []bool{false, true} {
		var nbc []Plan
		for _, p := range Plans(quick) {
			if p.Group == "nbc" {
				nbc = append(nbc, p)
			}
		}
		if len(nbc) != 12 {
			t.Fatalf("quick=%v: %d nbc plans, want 12", quick, len(nbc))
		}
		for i := 0; i < len(nbc); i += 2 {
			pure, overlap := nbc[i], nbc[i+1]
			if !pure.SMOnly || pure.Plot != "" || pure.Column != 0 || pure.Higher || pure.Prog != pure.Name ||
				!slices.Contains(NBCRanks, pure.NP) {
				t.Errorf("%s: %+v", pure.Key(), pure)
			}
			if overlap.Key() != pure.Key()+"-overlap" || overlap.Column != OverlapColumn || !overlap.Higher || overlap.Group != "nbc" {
				t.Errorf("%s: %+v", overlap.Key(), overlap)
			}
			for _, s := range sides {
				if a, b := s.Command(pure, paths), s.Command(overlap, paths); !slices.Equal(a, b) {
					t.Errorf("%s on %s: %v and %v differ: they would not share a run", overlap.Key(), s.Label, a, b)
				}
			}
			m, err := osu.Lookup(pure.Name)
			if err != nil {
				t.Fatal(err)
			}
			if m.MoreColumns[OverlapColumn-1] != "Overlap(%)" {
				t.Errorf("%s: column %d after the value is %q", pure.Name, OverlapColumn, m.MoreColumns[OverlapColumn-1])
			}
			o, err := m.Options(sizeFlags(t, pure.Args))
			if err != nil {
				t.Fatal(err)
			}
			if iters, warm := o.For(4); !quick && (o.MaxSize() != 1<<20 || o.Sizes[0] != m.MinSize || iters != 1000 || warm != 200) {
				t.Errorf("%s: %v, %d iterations after %d: want OSU's", pure.Key(), pure.Args, iters, warm)
			}
		}
	}
	var goals []string
	for _, g := range Goals() {
		if g.Side == GompiCLabel || !slices.ContainsFunc([]string{"iallreduce-", "ibcast-", "ialltoall-"}, func(n string) bool { return strings.HasPrefix(g.Plan, n) }) {
			continue
		}
		goals = append(goals, g.Plan)
		want := 0.0
		if strings.HasSuffix(g.Plan, "-overlap") {
			want = 90
		}
		if g.Side != "gompi sm" || g.From != 0 || g.To != math.MaxInt || g.AtLeast != want || g.Against != "" {
			t.Errorf("goal %+v", g)
		}
	}
	if len(goals) != 12 || goals[0] != "iallreduce-2" || goals[11] != "ialltoall-4-overlap" {
		t.Errorf("nbc goals %v", goals)
	}
}

// plan finds a plan by key.
func plan(t *testing.T, plans []Plan, key string) Plan {
	t.Helper()
	i := slices.IndexFunc(plans, func(p Plan) bool { return p.Key() == key })
	if i < 0 {
		t.Fatalf("no plan %s", key)
	}
	return plans[i]
}

func TestSides(t *testing.T) {
	labels := func(sides []*Side) (out []string) {
		for _, s := range sides {
			out = append(out, s.Label)
			if s.Against != nil && !slices.Contains(sides, s.Against) {
				t.Errorf("%s is held against %s, which is not a side", s.Label, s.Against.Label)
			}
		}
		return out
	}
	if got := labels(Sides(OpenMPI(), MPICH(), nil, true)); !slices.Equal(got, []string{"gompi tcp", "Open MPI tcp", "gompi sm", "Open MPI sm", "MPICH"}) {
		t.Errorf("with sm: %v", got)
	}
	if got := labels(Sides(OpenMPI(), nil, nil, false)); !slices.Equal(got, []string{"gompi tcp", "Open MPI tcp", "Open MPI sm"}) {
		t.Errorf("without sm or MPICH: %v", got)
	}
	// The collectives run on the shared-memory sides only.
	coll := plan(t, Plans(true), "allreduce-2")
	var in []*Side
	for _, s := range Sides(OpenMPI(), MPICH(), nil, true) {
		if s.inPlan(coll) {
			in = append(in, s)
		}
		if !s.inPlan(plan(t, Plans(true), "latency")) {
			t.Errorf("%s is not in latency's plan", s.Label)
		}
	}
	if got := labels(in); !slices.Equal(got, []string{"gompi sm", "Open MPI sm", "MPICH"}) {
		t.Errorf("collective sides: %v", got)
	}
	for _, s := range Sides(OpenMPI(), nil, nil, true) {
		if s.Lib == nil && s.Against.btl() != "self,"+map[string]string{"tcp": "tcp", "sm": "vader"}[s.Expect] {
			t.Errorf("%s (btl %s) is held against %s (btl %s)", s.Label, s.btl(), s.Against.Label, s.Against.btl())
		}
	}
}

func TestCommands(t *testing.T) {
	ompi, mpich := OpenMPI(), MPICH()
	sides := Sides(ompi, mpich, nil, true)
	gtcp, otcp, gsm, osm, mpi := sides[0], sides[1], sides[2], sides[3], sides[4]
	paths := Paths{Gompirun: "bin/gompirun", Bench: "bin/gompi-bench", Build: "bench/build"}
	plans := Plans(false)
	lat, multi, incast, ring, launch := plan(t, plans, "latency"), plan(t, plans, "multi-lat"), plan(t, plans, "incast"),
		plan(t, plans, "ring-16"), plan(t, plans, "launch")
	allreduce, barrier := plan(t, plans, "allreduce-8"), plan(t, plans, "barrier-2")
	over := func(p Plan) []string {
		if p.NP > runtime.NumCPU() {
			return []string{"--oversubscribe"}
		}
		return nil
	}
	gompirun := func(p Plan, btl string) []string {
		return append(append(append([]string{"bin/gompirun", "-np", strconv.Itoa(p.NP)}, over(p)...), "--mca", "btl", btl,
			"bin/gompi-bench", p.Name), p.Args...)
	}
	for _, c := range []struct {
		side *Side
		plan Plan
		want []string
	}{
		{gtcp, lat, append([]string{"bin/gompirun", "-np", "2", "--mca", "btl", "self,tcp", "bin/gompi-bench", "latency"}, lat.Args...)},
		{gtcp, multi, gompirun(multi, "self,tcp")},
		{gsm, multi, gompirun(multi, "self,sm")},
		{gsm, incast, gompirun(incast, "self,sm")},
		{gtcp, ring, gompirun(ring, "self,tcp")},
		{otcp, lat, append([]string{"mpirun.openmpi", "-np", "2", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo",
			"bench/build/openmpi/latency"}, lat.Args...)},
		{osm, multi, append(append(append([]string{"mpirun.openmpi", "-np", "4"}, over(multi)...), "--mca", "btl", "self,vader",
			"bench/build/openmpi/multi_lat"), multi.Args...)},
		{otcp, incast, append(append(append([]string{"mpirun.openmpi", "-np", "8"}, over(incast)...), "--mca", "btl", "self,tcp",
			"--mca", "btl_tcp_if_include", "lo", "bench/build/openmpi/incast"), incast.Args...)},
		{osm, ring, append(append(append([]string{"mpirun.openmpi", "-np", "16"}, over(ring)...), "--mca", "btl", "self,vader",
			"bench/build/openmpi/ring"), ring.Args...)},
		{mpi, lat, append([]string{"mpiexec.mpich", "-n", "2", "bench/build/mpich/latency"}, lat.Args...)},
		{gsm, allreduce, gompirun(allreduce, "self,sm")},
		{osm, allreduce, append(append(append([]string{"mpirun.openmpi", "-np", "8"}, over(allreduce)...), "--mca", "btl", "self,vader",
			"bench/build/openmpi/allreduce"), allreduce.Args...)},
		{gsm, barrier, append([]string{"bin/gompirun", "-np", "2", "--mca", "btl", "self,sm", "bin/gompi-bench", "barrier"}, barrier.Args...)},
		{mpi, barrier, append([]string{"mpiexec.mpich", "-n", "2", "bench/build/mpich/barrier"}, barrier.Args...)},
		{gtcp, launch, append(append([]string{"env", "GOMPI_MCA_btl=self,tcp", "bin/gompi-bench", "launch"}, launch.Args...),
			"--gompirun", "bin/gompirun")},
		{gsm, launch, append(append([]string{"env", "GOMPI_MCA_btl=self,sm", "bin/gompi-bench", "launch"}, launch.Args...),
			"--gompirun", "bin/gompirun")},
		{mpi, launch, append(append([]string{"bin/gompi-bench", "launch"}, launch.Args...),
			"--", "mpiexec.mpich", "-n", "{np}", "bench/build/mpich/init_finalize")},
	} {
		if got := c.side.Command(c.plan, paths); !slices.Equal(got, c.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", c.side.Label, c.plan.Key(), got, c.want)
		}
	}
	for _, p := range []Plan{multi, incast, ring, allreduce} {
		if why := mpi.skips(p); (why == "") != (p.NP <= runtime.NumCPU()) {
			t.Errorf("MPICH and %s with %d ranks: %q", p.Key(), p.NP, why)
		}
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
	// A hang guard, not a measurement: on a loaded machine Open MPI's
	// oversubscribed ranks took more than a minute for the whole list.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := Build(ctx, lib, "../c", dir); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	if err := Smoke(ctx, lib, dir, env); err != nil {
		t.Fatal(err)
	}
	mpirun := func(np int, args ...string) (string, error) {
		launch := []string{"-np", strconv.Itoa(np), "--oversubscribe", "--mca", "btl", "self,vader"}
		cmd := exec.CommandContext(ctx, lib.Run, append(launch, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		return string(out), err
	}
	small := []string{"-m", "0:4", "-i", "3", "-x", "1"}
	for _, c := range []struct {
		prog, name string
		np         int
		args       []string
		keys       []int
	}{
		{"latency", "latency", 2, small, []int{0, 1, 2, 4}},
		{"sendrecv", "sendrecv", 2, small, []int{0, 1, 2, 4}},
		{"bw", "bw", 2, small, []int{1, 2, 4}},
		{"bibw", "bibw", 2, small, []int{1, 2, 4}},
		{"multi_lat", "multi-lat", 2, small, []int{0, 1, 2, 4}},
		{"incast", "incast", 3, small, []int{1, 2, 4}},
		{"ring", "ring", 3, small, []int{0, 1, 2, 4}},
		// Their default sizes are gompi-bench's: up to 1 KiB and 8 bytes.
		{"incast", "incast", 3, []string{"-i", "2", "-x", "0"}, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
		{"ring", "ring", 2, []string{"-i", "2", "-x", "0"}, []int{0, 1, 2, 4, 8}},
	} {
		out, err := mpirun(c.np, append([]string{filepath.Join(dir, lib.Dir, c.prog)}, c.args...)...)
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
	// The collectives print gompi-bench's tables too, -f with two more
	// columns; barrier's one row is keyed by the rank count.
	for _, c := range []struct {
		prog string
		np   int
		args []string
		keys []int
	}{
		{"barrier", 3, []string{"-i", "5", "-x", "1"}, []int{3}},
		{"comm_dup", 3, []string{"-i", "5", "-x", "1"}, []int{3}},
		{"comm_idup", 2, []string{"-i", "5", "-x", "1"}, []int{2}},
		{"comm_split", 3, []string{"-i", "5", "-x", "1"}, []int{3}},
		{"bcast", 3, []string{"-m", "0:4", "-i", "3", "-x", "1"}, []int{1, 2, 4}},
		{"reduce", 2, []string{"-m", "1:16", "-i", "3", "-x", "1"}, []int{4, 8, 16}},
		{"allreduce", 3, []string{"-s", "4,16K", "-i", "3", "-x", "1"}, []int{4, 16 << 10}},
		{"allgather", 3, []string{"-s", "1,16K", "-i", "3", "-x", "1"}, []int{1, 16 << 10}},
		{"alltoall", 3, []string{"-s", "1,16K", "-i", "3", "-x", "1"}, []int{1, 16 << 10}},
	} {
		out, err := mpirun(c.np, append([]string{filepath.Join(dir, lib.Dir, c.prog)}, c.args...)...)
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
		m, _ := osu.Lookup(strings.ReplaceAll(c.prog, "_", "-"))
		o, _ := m.Options(osu.Flags{})
		key, _ := m.Headings(o)
		if tb.Fields["unit"] != m.Unit+": "+m.About || tb.Column != m.Column || tb.Key != key || !slices.Equal(tb.Keys(), c.keys) {
			t.Errorf("%s: table differs from gompi-bench's: %+v", c.prog, tb)
		}
	}
	// The neighbourhood collectives print gompi-bench's tables, on a
	// torus of 4 ranks (2 by 2) and of 3 (3 by 1).
	for _, c := range []struct {
		prog string
		np   int
	}{{"neighbor_allgather", 4}, {"neighbor_alltoall", 3}} {
		out, err := mpirun(c.np, filepath.Join(dir, lib.Dir, c.prog), "-s", "1,16K", "-i", "3", "-x", "1", "-f")
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
		m, _ := osu.Lookup(strings.ReplaceAll(c.prog, "_", "-"))
		if tb.Fields["unit"] != m.Unit+": "+m.About || !strings.HasPrefix(tb.Column, m.Column) || !slices.Equal(tb.Keys(), []int{1, 16 << 10}) ||
			len(tb.Rows[0].More) != 2 {
			t.Errorf("%s: table differs from gompi-bench's: %+v", c.prog, tb)
		}
	}
	// The overlap measurements print gompi-bench's five columns, the
	// overlap last, between 0 and 100.
	for _, prog := range []string{"iallreduce", "ibcast", "ialltoall"} {
		out, err := mpirun(2, filepath.Join(dir, lib.Dir, prog), "-s", "4,16K", "-i", "3", "-x", "1")
		if err != nil {
			t.Fatalf("%s: %v\n%s", prog, err, out)
		}
		tb, err := table.Parse(strings.NewReader(out))
		if err == nil {
			err = tb.Check()
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", prog, err, out)
		}
		m, _ := osu.Lookup(prog)
		heads := strings.Join(append([]string{m.Column}, m.MoreColumns...), " ")
		if tb.Fields["unit"] != m.Unit+": "+m.About || strings.Join(strings.Fields(tb.Column), " ") != heads ||
			!slices.Equal(tb.Keys(), []int{4, 16 << 10}) {
			t.Errorf("%s: table differs from gompi-bench's: %+v", prog, tb)
		}
		for _, r := range tb.Rows {
			if len(r.More) != 3 || r.More[2] > 100 || r.More[1] > r.More[0] {
				t.Errorf("%s: row %+v: want overall, compute no longer than it, and an overlap to 100", prog, r)
			}
		}
	}
	out, err := mpirun(2, filepath.Join(dir, lib.Dir, "allreduce"), "-s", "4", "-i", "3", "-x", "0", "-f")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(strings.Fields(lines[len(lines)-1])) != 4 ||
		!strings.HasSuffix(lines[len(lines)-2], "Min Latency (us) Max Latency (us)") {
		t.Errorf("allreduce -f: %v\n%s", err, out)
	}
	if out, err := mpirun(2, filepath.Join(dir, lib.Dir, "barrier"), "-m", "4"); err == nil {
		t.Errorf("barrier -m 4 succeeded:\n%s", out)
	}
	// A bad flag is reported once, with a non-zero status.
	if out, err := mpirun(2, filepath.Join(dir, lib.Dir, "latency"), "-m", "8:1"); err == nil {
		t.Errorf("latency -m 8:1 succeeded:\n%s", out)
	}
}
