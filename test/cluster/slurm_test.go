package cluster

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// slurmOutput runs a Slurm command on host and returns its stdout.
func slurmOutput(t *testing.T, s *Slurm, host, name string, args ...string) string {
	t.Helper()
	out, err := s.Command(host, name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s on %s: %v", name, strings.Join(args, " "), host, exitDetail(err))
	}
	return string(out)
}

func TestSlurm(t *testing.T) {
	c := Up(t, 3, Options{})
	s := c.StartSlurm(t, SlurmOptions{})

	// A job that follows one with steps may wait a second or two for its
	// nodes to finish completing: salloc, whose job has none, goes first.
	t.Run("salloc", func(t *testing.T) {
		out := slurmOutput(t, s, "h1", "salloc", "-N3", "sh", "-c", "echo $(hostname) $SLURM_JOB_NODELIST $SLURM_TASKS_PER_NODE")
		if got, want := strings.TrimSpace(out), "h1 h[1-3] 1(x3)"; got != want {
			t.Errorf("salloc -N3 on h1 printed %q, want %q (the shell runs where salloc does)", got, want)
		}
	})

	t.Run("srun", func(t *testing.T) {
		names := strings.Fields(slurmOutput(t, s, "h1", "srun", "-N3", "-n6", "hostname"))
		slices.Sort(names)
		if want := []string{"h1", "h1", "h2", "h2", "h3", "h3"}; !slices.Equal(names, want) {
			t.Errorf("srun -N3 -n6 hostname printed %q, want %q", names, want)
		}
	})

	t.Run("mpi list", func(t *testing.T) {
		out, err := s.Command("h1", "srun", "--mpi=list").CombinedOutput()
		if err != nil {
			t.Fatalf("srun --mpi=list: %v: %s", err, out)
		}
		if !regexp.MustCompile(`(?m)\bpmi2\b`).Match(out) {
			t.Errorf("srun --mpi=list does not offer pmi2: %s", out)
		}
	})

	t.Run("pmi2", func(t *testing.T) {
		out := slurmOutput(t, s, "h1", "srun", "--mpi=pmi2", "--label", "-N2", "-n4", "env")
		env := make(map[string]map[string]string) // task -> variable -> value
		for _, line := range strings.Split(out, "\n") {
			task, kv, ok := strings.Cut(line, ": ")
			k, v, isVar := strings.Cut(kv, "=")
			if !ok || !isVar {
				continue
			}
			task = strings.TrimSpace(task)
			if env[task] == nil {
				env[task] = make(map[string]string)
			}
			env[task][k] = v
		}
		for rank := range 4 {
			task := strconv.Itoa(rank)
			vars := env[task]
			if vars["PMI_RANK"] != task || vars["PMI_SIZE"] != "4" || vars["PMI_FD"] == "" || vars["PMI_JOBID"] == "" {
				t.Errorf("task %s: PMI_RANK=%q PMI_SIZE=%q PMI_FD=%q PMI_JOBID=%q; want its rank, size 4, a descriptor and a job id",
					task, vars["PMI_RANK"], vars["PMI_SIZE"], vars["PMI_FD"], vars["PMI_JOBID"])
			}
		}
		// Block distribution: two tasks on each of the two nodes Slurm
		// chose, which need not be h1 and h2 (a node still finishing the
		// step before may be passed over).
		node := func(task int) string { return env[strconv.Itoa(task)]["SLURMD_NODENAME"] }
		if node(0) != node(1) || node(2) != node(3) || node(0) == node(2) || !slices.Contains([]string{"h1", "h2", "h3"}, node(0)) ||
			!slices.Contains([]string{"h1", "h2", "h3"}, node(2)) {
			t.Errorf("tasks 0-3 ran on nodes %q %q %q %q, want two on one node of h1-h3, then two on another", node(0), node(1), node(2), node(3))
		}
		if len(env) != 4 {
			t.Errorf("srun -n4 env printed the environments of tasks %v, want 0-3", slices.Sorted(maps.Keys(env)))
		}
	})

	t.Run("pmix", func(t *testing.T) {
		out := slurmOutput(t, s, "h1", "srun", "--mpi=pmix", "-N3", "-n3", "sh", "-c", "echo $(hostname) $PMIX_RANK")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		slices.Sort(lines)
		if want := []string{"h1 0", "h2 1", "h3 2"}; !slices.Equal(lines, want) {
			t.Errorf("srun --mpi=pmix -N3 -n3 printed %q, want %q", lines, want)
		}
	})
}

// systemFiles lists what a Slurm or munge left in the machine's own
// places (the root namespace's /etc, /run, /var, /dev/shm and cgroups):
// paths whose name mentions either, to the given depth under each root.
func systemFiles(t *testing.T) []string {
	t.Helper()
	roots := []struct {
		dir   string
		depth int
	}{{"/etc", 2}, {"/run", 2}, {"/var/lib", 2}, {"/var/log", 2}, {"/var/spool", 2}, {"/dev/shm", 1}, {"/sys/fs/cgroup", 3}}
	var found []string
	for _, r := range roots {
		filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(r.dir, path)
			if depth := strings.Count(rel, "/") + 1; rel != "." && depth > r.depth {
				return fs.SkipDir
			}
			if name := strings.ToLower(d.Name()); strings.Contains(name, "slurm") || strings.Contains(name, "munge") {
				found = append(found, path)
			}
			return nil
		})
	}
	return found
}

func TestSlurmTeardown(t *testing.T) {
	before := systemFiles(t)
	// With private /tmp, Leftovers also shows what Slurm would leave in
	// the hosts' /tmp.
	c := Up(t, 3, Options{PrivateTmp: true})
	var s *Slurm
	var clients []*exec.Cmd
	ended := make(chan string, 2)
	t.Run("jobs running at teardown", func(t *testing.T) {
		s = c.StartSlurm(t, SlurmOptions{})
		// A step on every node, which the teardown must end although its
		// tasks ignore SIGTERM, and an allocation without steps, whose
		// command runs where salloc does (killed when the allocation
		// is revoked because of --kill-command, as on real clusters).
		for _, argv := range [][]string{
			{"srun", "-N3", "sh", "-c", `trap "" TERM; exec sleep 600`},
			{"salloc", "--kill-command=KILL", "-N1", "sleep", "600"},
		} {
			cmd := s.Command("h1", argv[0], argv[1:]...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			clients = append(clients, cmd)
			go func() {
				cmd.Wait()
				ended <- argv[0]
			}()
		}
		// Wait until the step's task runs on every node; the bound only
		// keeps a broken Slurm from hanging the test.
		var left []string
		for deadline := time.Now().Add(time.Minute); ; {
			left = s.Leftovers()
			running := 0
			for _, h := range c.Hosts() {
				if slices.ContainsFunc(left, func(l string) bool { return strings.HasPrefix(l, h+":") && strings.HasSuffix(l, "sleep 600") }) {
					running++
				}
			}
			jobs := strings.Fields(slurmOutput(t, s, "h1", "squeue", "--noheader", "--states=RUNNING", "--format=%A"))
			if running == len(c.Hosts()) && len(jobs) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the jobs did not start: Leftovers() = %q", left)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !slices.ContainsFunc(left, func(l string) bool { return strings.Contains(l, ": slurmstepd: [") }) {
			t.Errorf("Leftovers() with a job running = %q, want its slurmstepds listed", left)
		}
		if slices.ContainsFunc(left, func(l string) bool { return strings.Contains(l, "slurmd -D") || strings.Contains(l, "slurmscriptd") }) {
			t.Errorf("Leftovers() = %q lists Slurm's daemons, which are part of the hosts", left)
		}
	})
	if s == nil {
		// The subtest skipped (no Slurm here; it says why) or failed.
		t.SkipNow()
	}
	// The subtest's cleanup stopped Slurm; the hosts are still up.
	// The jobs' clients heard of the end; the bound only keeps the test
	// from hanging when they did not.
	for range clients {
		select {
		case <-ended:
		case <-time.After(time.Minute):
			for _, cmd := range clients {
				cmd.Process.Kill()
			}
			t.Fatal("srun or salloc still runs after Slurm's teardown")
		}
	}
	if left := c.Leftovers(); len(left) != 0 {
		t.Errorf("Leftovers() after Slurm's teardown = %q, want none", left)
	}
	if pids, err := s.slurmProcs(slurmExes()); err != nil || len(pids) != 0 {
		t.Errorf("Slurm processes on the hosts after teardown: %v, %v", pids, err)
	}
	if s.munged.cmd.ProcessState == nil {
		t.Errorf("munged %d was not reaped", s.munged.cmd.Process.Pid)
	}
	for _, d := range s.daemons {
		if d.cmd.ProcessState == nil {
			t.Errorf("%s on %s was not reaped", d.exe, d.host)
		}
		if slices.Contains(c.daemons, d) {
			t.Errorf("%s on %s is still one of the cluster's daemons", d.exe, d.host)
		}
	}
	entries, err := os.ReadDir(c.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), "slurm") || strings.Contains(e.Name(), "munge") {
			t.Errorf("%s left in the cluster's state directory", filepath.Join(c.state, e.Name()))
		}
	}
	if after := systemFiles(t); !slices.Equal(before, after) {
		t.Errorf("Slurm left files on the machine: before %q, after %q", before, after)
	}
}

func TestParallelSlurms(t *testing.T) {
	for _, err := range []error{Available(), SlurmAvailable()} {
		if err != nil {
			t.Skip(err)
		}
	}
	var mu sync.Mutex
	names := make(map[string]bool)
	t.Run("group", func(t *testing.T) {
		// One with private /tmp: munge's socket and Slurm's files live in
		// the state directory, which stays shared.
		for name, opts := range map[string]Options{"shared tmp": {}, "private tmp": {PrivateTmp: true}} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				c := Up(t, 2, opts)
				s := c.StartSlurm(t, SlurmOptions{CPUs: 1})
				hosts := strings.Fields(slurmOutput(t, s, "h2", "srun", "-N2", "-n2", "hostname"))
				slices.Sort(hosts)
				if !slices.Equal(hosts, c.Hosts()) {
					t.Errorf("srun -N2 -n2 hostname printed %q, want %q", hosts, c.Hosts())
				}
				mu.Lock()
				names[s.Name()] = true
				mu.Unlock()
			})
		}
	})
	if len(names) != 2 {
		t.Errorf("two Slurm clusters at once had names %v, want two different", names)
	}
}

func TestStartSlurmTwice(t *testing.T) {
	c := Up(t, 1, Options{})
	c.StartSlurm(t, SlurmOptions{})
	// A second Slurm would share the first's ports and files: refused.
	if s, err := c.newSlurm(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Slurm on one cluster: %v, %v; want an error that says StartSlurm was called twice", s, err)
	}
}

// BenchmarkSlurmStartStop measures StartSlurm and the Slurm teardown on
// 3 hosts, from writing the configuration to idle nodes and back to no
// Slurm process.
func BenchmarkSlurmStartStop(b *testing.B) {
	if err := SlurmAvailable(); err != nil {
		b.Skip(err)
	}
	c := Up(b, 3, Options{})
	var start, stop time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		s, err := c.newSlurm()
		if err == nil {
			err = s.start(SlurmOptions{CPUs: 2})
		}
		start += time.Since(t0)
		t0 = time.Now()
		if s != nil {
			if _, serr := s.stop(); serr != nil {
				b.Fatal(serr)
			}
		}
		stop += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(start.Microseconds())/1000/float64(n), "start-ms/op")
	b.ReportMetric(float64(stop.Microseconds())/1000/float64(n), "stop-ms/op")
}
