// Package capi_test runs C programs on gompi's C library, libmpi_abi, as
// real jobs: it compiles each program of testdata/ with the system's C
// compiler against capi/include/mpi.h and the library, and launches it
// with gompirun as a user would. Each program checks its own results:
// it prints lines beginning "ok" and exits 0, or names what failed and
// exits non-zero (testdata/check.h has the checks the programs share).
//
// A new program is a file testdata/<name>.c: it runs on 2 and 3 ranks
// unless runs gives it other jobs. TestEveryFunctionCalled holds the
// programs to call every function the library implements.
package capi_test

import (
	"encoding/json"
	"errors"
	"fmt"
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

	"github.com/gompi/gompi/components/prof/stats"
	"github.com/gompi/gompi/internal/jobtest"
)

// The suite's set-up, which TestMain makes.
var (
	gompirun string
	libDir   string // libmpi_abi.so.1 and its libmpi_abi.so link
	binDir   string // the compiled programs
	cc       string // the C compiler; "" when there is none
	noCC     string // why the programs cannot run, when cc is ""
)

// include is the directory of the standard ABI's mpi.h.
var include, _ = filepath.Abs("../../capi/include")

func TestMain(m *testing.M) {
	jobtest.SkipUnderShort()
	code, err := setUp(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 2
	}
	os.Exit(code)
}

// setUp finds the C compiler and, when there is one, builds gompirun and
// the library (or takes them from GOMPI_TEST_BIN), then runs the tests.
func setUp(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "capitest")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if cc, err = exec.LookPath("cc"); err != nil {
		cc, noCC = "", fmt.Sprintf("no C compiler to build the C test programs with: %v", err)
		return m.Run(), nil
	}
	bins, err := jobtest.Build(dir, map[string]string{"gompirun": "../../cmd/gompirun"})
	if err != nil {
		return 0, err
	}
	gompirun = bins["gompirun"]
	if libDir, err = jobtest.CLibrary(dir, "../.."); err != nil {
		return 0, err
	}
	binDir = filepath.Join(dir, "programs")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// programs are the C programs of testdata/, by name (the file's without
// .c).
func programs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.c")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".c"))
	}
	return names
}

// compiled holds each program's compilation, done once whatever the
// number of its jobs.
var compiled sync.Map // name -> func() (compilation, error)

type compilation struct {
	bin      string
	warnings string // what cc -Wall said
}

// compile returns the path of program name, compiled with the library.
func compile(t *testing.T, name string) string {
	t.Helper()
	if cc == "" {
		t.Skip(noCC)
	}
	f, _ := compiled.LoadOrStore(name, sync.OnceValues(func() (compilation, error) {
		bin := filepath.Join(binDir, name)
		// Linked as gompicc links: main run by the start archive.
		out, err := exec.Command(cc, "-O2", "-Wall", "-pthread", "-I"+include, "-o", bin, filepath.Join("testdata", name+".c"),
			"-Wl,--wrap=main", filepath.Join(libDir, jobtest.StartArchive),
			"-L"+libDir, "-lmpi_abi", "-Wl,-rpath,"+libDir).CombinedOutput()
		if err != nil {
			return compilation{}, fmt.Errorf("%s %s.c: %v\n%s", cc, name, err, out)
		}
		return compilation{bin, string(out)}, nil
	}))
	c, err := f.(func() (compilation, error))()
	if err != nil {
		t.Fatal(err)
	}
	if c.warnings != "" {
		t.Logf("%s %s.c warns:\n%s", cc, name, c.warnings)
	}
	return c.bin
}

// A run is one job of a program.
type run struct {
	np    int      // ranks; 0 runs the program alone, without gompirun: MPI as a singleton
	name  string   // the subtest's name after np, when args need one
	args  []string // gompirun's further arguments
	fatal []string // the job must fail, its output saying each of these
	// said is what the job's standard output must hold, printed before
	// the job failed: the library flushes what C's stdout holds.
	said []string
}

// collComponents are the coll selections op runs under: each of the
// components that serve a one-node job alone over basic, and the default
// stack. coll sm serves a communicator from its first call
// (coll_sm_segment_after 0), as it does after 256 by default.
var collComponents = []run{
	{np: 3, name: "basic", args: []string{"--mca", "coll", "basic"}},
	{np: 3, name: "tuned", args: []string{"--mca", "coll", "tuned,basic"}},
	{np: 3, name: "sm", args: []string{"--mca", "coll", "sm,self,basic", "--mca", "coll_sm_segment_after", "0"}},
	{np: 4, name: "default"},
}

// runs are the programs' jobs; a program not named here runs on 2 and 3
// ranks (defaultRuns).
var runs = map[string][]run{
	// p2p's large messages over tcp too, whose rendezvous differs.
	"p2p":        {{np: 2}, {np: 3}, {np: 3, name: "tcp", args: []string{"--mca", "btl", "self,tcp"}}},
	"coll":       {{np: 2}, {np: 3}, {np: 4}},
	"op":         collComponents,
	"errhandler": {{np: 2}},
	"handles":    {{np: 2}, {np: 0}},
	"singleton":  {{np: 0}},
	"sigurg":     {{np: 0}, {np: 2}},
	"fork":       {{np: 0}, {np: 2}},
	"sighandler": {
		{np: 2, name: "abort", args: []string{"-x", "SIGHANDLER=abort"}, said: []string{"rank 1 handles the signal"},
			fatal: []string{"MPI_Abort called with code 5 while this thread was inside another MPI call", "rank 1", "exited with status 5"}},
		{np: 2, name: "other", args: []string{"-x", "SIGHANDLER=other"}, said: []string{"rank 1 handles the signal"},
			fatal: []string{"MPI_Barrier called while this thread was inside another MPI call", "rank 1", "exited with status 70"}},
	},
	"session":     {{np: 2}, {np: 3}, {np: 0}},
	"partitioned": {{np: 2}, {np: 3}},
	"fortranabi":  {{np: 2}, {np: 3}, {np: 0}},
	"sessionleak": {{np: 2, fatal: []string{"exited without calling Finalize"}}},
	// tools reads btl_sm_eager_limit as gompirun sets it, 63k alone.
	"tools": {{np: 2, args: []string{"--mca", "btl_sm_eager_limit", "16k", "--mca", "btl", "self,sm"}}, {np: 0}},
	// errfatal's bad send meets the default handler, MPI_ERRORS_ARE_FATAL,
	// which must end the job naming the error.
	"errfatal": {{np: 2, fatal: []string{"in MPI_Send on comm MPI_COMM_WORLD", "MPI_ERRORS_ARE_FATAL", "MPI_ERR_RANK", "rank 7"}, said: []string{"rank 0 sends to rank 7"}}},
	"abort": {{np: 2, fatal: []string{"rank 1", "called Abort with code 3"}, said: []string{"rank 0 waits\n", "rank 1 aborts"}},
		// Erroneous, but what a program that refuses its command line
		// before MPI_Init does: it stops with its code, saying so.
		{np: 2, name: "early", args: []string{"-x", "ABORT_EARLY=1"},
			fatal: []string{"MPI_Abort called before MPI_Init, with code 4", "exited with status 4"}, said: []string{"rank ? aborts early"}}},
	// finalflush's rank 0 kills itself after MPI_Finalize: what it printed
	// before is out, and rank 1 ends as it would.
	"finalflush": {{np: 2, fatal: []string{"rank 0", "killed by signal SIGKILL after calling Finalize"}, said: []string{"rank 0 finalizes", "rank 1 ends"}}},
	// splitfatal's color -1 is named as the program passed it.
	"splitfatal": {{np: 2, fatal: []string{"MPI_ERR_ARG", "rank 1 passed color -1 (want"}}},
	// badargs' rank 2 passes arguments the library itself refuses; with
	// BADARGS_FATAL=<rank>:<part>, that rank's message ends the job: the
	// bad rank's own, or another's naming rank 2 (the duplications,
	// MPI_Comm_create_group, MPI_Comm_create_from_group and
	// MPI_Intercomm_merge fail rank 2 alone).
	"badargs": {
		{np: 4},
		{np: 4, name: "cart-own", args: []string{"-x", "BADARGS_FATAL=2:cart"}, fatal: []string{"MPI_ERR_ARG", "cart create: the array of 2 dims is NULL"}},
		{np: 4, name: "cart", args: []string{"-x", "BADARGS_FATAL=0:cart"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed invalid dims and periods"}},
		{np: 4, name: "graph", args: []string{"-x", "BADARGS_FATAL=3:graph"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed invalid index and edges"}},
		{np: 4, name: "distgraph-own", args: []string{"-x", "BADARGS_FATAL=2:distgraph"}, fatal: []string{"MPI_ERR_ARG", "dist graph create: degrees[0] is -1"}},
		{np: 4, name: "distgraph", args: []string{"-x", "BADARGS_FATAL=1:distgraph"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed invalid edges"}},
		{np: 4, name: "create-own", args: []string{"-x", "BADARGS_FATAL=2:create"}, fatal: []string{"MPI_ERR_GROUP", "is not a group"}},
		{np: 4, name: "create", args: []string{"-x", "BADARGS_FATAL=0:create"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed invalid group"}},
		{np: 4, name: "splittype", args: []string{"-x", "BADARGS_FATAL=0:splittype"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed type 12345"}},
		{np: 4, name: "intercomm", args: []string{"-x", "BADARGS_FATAL=2:intercomm"}, fatal: []string{"MPI_ERR_COMM", "leader, rank 0", "failed"}},
		{np: 4, name: "nullout-own", args: []string{"-x", "BADARGS_FATAL=2:nullout"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Cart_create on comm ", "comm_cart is a NULL pointer"}},
		{np: 4, name: "nullout", args: []string{"-x", "BADARGS_FATAL=3:nullout"}, fatal: []string{"MPI_ERR_ARG", "rank 2 passed invalid dims and periods"}},
		{np: 4, name: "nullsplit", args: []string{"-x", "BADARGS_FATAL=0:nullsplit"}, fatal: []string{"MPI_ERR_ARG", "comm split on", "rank 2 passed color"}},
		{np: 4, name: "dup-own", args: []string{"-x", "BADARGS_FATAL=2:dup"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Comm_dup on comm ", "newcomm is a NULL pointer"}},
		{np: 4, name: "dupinfo-own", args: []string{"-x", "BADARGS_FATAL=2:dupinfo"}, fatal: []string{"MPI_ERR_INFO", "is not an info object"}},
		{np: 4, name: "idup-own", args: []string{"-x", "BADARGS_FATAL=2:idup"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Comm_idup on comm ", "newcomm is a NULL pointer"}},
		{np: 4, name: "idupinfo-own", args: []string{"-x", "BADARGS_FATAL=2:idupinfo"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Comm_idup_with_info on comm ", "request is a NULL pointer"}},
		{np: 4, name: "creategroup-own", args: []string{"-x", "BADARGS_FATAL=2:creategroup"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Comm_create_group on comm ", "newcomm is a NULL pointer"}},
		{np: 4, name: "nullinter-own", args: []string{"-x", "BADARGS_FATAL=2:nullinter"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Intercomm_create on comm ", "newintercomm is a NULL pointer"}},
		{np: 4, name: "nullinter-local", args: []string{"-x", "BADARGS_FATAL=0:nullinter"}, fatal: []string{"MPI_ERR_ARG", "rank 2 of the local group passed an invalid local leader"}},
		{np: 4, name: "nullinter", args: []string{"-x", "BADARGS_FATAL=3:nullinter"}, fatal: []string{"MPI_ERR_ARG", "rank 2 of the remote group passed an invalid local leader"}},
		{np: 4, name: "nullmerge-own", args: []string{"-x", "BADARGS_FATAL=2:nullmerge"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Intercomm_merge on comm ", "newintracomm is a NULL pointer"}},
		{np: 4, name: "nullfromgroup-own", args: []string{"-x", "BADARGS_FATAL=2:nullfromgroup"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Comm_create_from_group (its error handler", "newcomm is a NULL pointer"}},
		{np: 4, name: "nullfromgroups-own", args: []string{"-x", "BADARGS_FATAL=2:nullfromgroups"}, fatal: []string{"MPI_ERR_ARG", "in MPI_Intercomm_create_from_groups (its error handler", "newintercomm is a NULL pointer"}},
		{np: 4, name: "nullfromgroups", args: []string{"-x", "BADARGS_FATAL=3:nullfromgroups"}, fatal: []string{"MPI_ERR_ARG", "rank 2 of the remote group passed an invalid local leader"}},
	},
	// heap's 1 MiB block comes from the heap, or, where the environment
	// sets glibc's threshold, from a mapping.
	"heap": {{np: 2}, {np: 2, name: "chosen", args: []string{"-x", "HEAP_MAPPED=1", "-x", "MALLOC_MMAP_THRESHOLD_=131072"}}},
	// fault's ranks end as a C program's do, main run by the start archive.
	"fault": {
		{np: 2, name: "main", args: []string{"-x", "FAULT=main"}, fatal: []string{"rank 1", "killed by signal SIGSEGV"}},
		{np: 2, name: "op", args: []string{"-x", "FAULT=op"}, fatal: []string{"rank 1", "killed by signal SIGSEGV"}},
		{np: 2, name: "status", args: []string{"-x", "FAULT=status"}, fatal: []string{"exited with status 3"}},
	},
}

var defaultRuns = []run{{np: 2}, {np: 3}}

// hangLimit is a job's limit, a guard against a hang: gompirun's
// --timeout ends the job a little earlier.
const hangLimit = 90 * time.Second

// TestPrograms runs every program of testdata/ as its runs say.
func TestPrograms(t *testing.T) {
	for _, name := range programs(t) {
		rs, ok := runs[name]
		if !ok {
			rs = defaultRuns
		}
		for _, r := range rs {
			sub := fmt.Sprintf("%s/np%d", name, r.np)
			if r.np == 0 {
				sub = name + "/singleton"
			}
			if r.name != "" {
				sub += "-" + r.name
			}
			t.Run(sub, func(t *testing.T) {
				t.Parallel()
				j := start(t, compile(t, name), r)
				if len(r.fatal) > 0 {
					expectFatal(t, j, r.fatal)
					for _, l := range r.said {
						if !strings.Contains(j.Stdout, l) {
							t.Errorf("its output lacks %q\n%v", l, j)
						}
					}
					return
				}
				expectOK(t, j)
			})
		}
	}
}

// TestToolsSeeTypeAndInfoCalls runs profiled on 2 ranks under the stats
// tool: a C program's datatype, packing and Info calls reach the Go
// profiling tools as a Go program's do, once each, Pack and Unpack with
// the bytes they copy.
func TestToolsSeeTypeAndInfoCalls(t *testing.T) {
	got, _ := profiled(t, "profiled")
	for name, want := range map[string][2]int64{
		"Type_vector": {2, 0}, "Type_create_darray": {2, 0}, "Type_commit": {2 * 2, 0}, "Type_free": {2 * 2, 0},
		"Pack": {2, 2 * 32}, "Unpack": {2, 2 * 32},
		"Info_create": {2, 0}, "Info_set": {2 * 2, 0}, "Info_free": {2, 0},
	} {
		if f := got[name]; f.Calls != want[0] || f.Bytes != want[1] {
			t.Errorf("%s: %d calls, %d bytes; want %d and %d", name, f.Calls, f.Bytes, want[0], want[1])
		}
	}
}

// TestToolsSeeEveryTest runs polling on 2 ranks under the stats tool:
// every MPI_Test, MPI_Testany, MPI_Testall, MPI_Testsome and MPI_Iprobe
// reaches it, none answered in C, which a loop of them otherwise is while
// nothing can have changed.
func TestToolsSeeEveryTest(t *testing.T) {
	got, j := profiled(t, "polling")
	var tests, probes int64
	for _, m := range regexp.MustCompile(`tests (\d+) probes (\d+) rank`).FindAllStringSubmatch(j.Stdout, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		p, _ := strconv.ParseInt(m[2], 10, 64)
		tests, probes = tests+n, probes+p
	}
	var seen int64
	for _, f := range []string{"Test", "Testany", "Testall", "Testsome"} {
		seen += got[f].Calls
	}
	if seen != tests || tests == 0 || got["Iprobe"].Calls != probes || probes == 0 {
		t.Errorf("the ranks made %d tests and %d probes; the tool saw %d and %d (%v)\n%v", tests, probes, seen, got["Iprobe"].Calls, got, j)
	}
}

// profiled runs program name on 2 ranks under the stats tool and returns
// the calls it counted, by function, summed over the ranks.
func profiled(t *testing.T, name string) (map[string]stats.FuncStat, jobtest.Job) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "stats")
	j := start(t, compile(t, name), run{np: 2, args: []string{"--mca", "prof", "stats", "--mca", "prof_stats_output", prefix}})
	expectOK(t, j)
	files, _ := filepath.Glob(prefix + ".*.json")
	if len(files) != 1 {
		t.Fatalf("report files %v, want one .json\n%v", files, j)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep stats.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]stats.FuncStat{}
	for _, f := range rep.Total.Functions {
		got[f.Name] = f
	}
	return got, j
}

// TestRunsNamePrograms keeps the table of runs true: each program it
// names is in testdata/.
func TestRunsNamePrograms(t *testing.T) {
	have := programs(t)
	for name := range runs {
		if !slices.Contains(have, name) {
			t.Errorf("runs names %s, which is not in testdata/ (%v)", name, have)
		}
	}
}

// env is what the programs run with: cgo's pointer checks on, whatever
// the test's own environment says.
const env = "GODEBUG=cgocheck=1"

// start runs bin as r says and waits for it.
func start(t *testing.T, bin string, r run) jobtest.Job {
	t.Helper()
	if r.np == 0 {
		return alone(t, bin)
	}
	args := append([]string{"-np", fmt.Sprint(r.np), "--oversubscribe", "--tag-output", "-x", env,
		"--timeout", fmt.Sprint(int(hangLimit.Seconds()) - 10)}, r.args...)
	j := jobtest.Run(t, gompirun, hangLimit, nil, append(args, bin)...)
	if j.Code == 124 {
		t.Fatalf("hung: gompirun's --timeout ended the job\n%v", j)
	}
	return j
}

// alone runs bin without gompirun, as a singleton, tagging its output as
// gompirun's --tag-output would for rank 0.
func alone(t *testing.T, bin string) jobtest.Job {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env, "HOME="+t.TempDir())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(hangLimit, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	if !timer.Stop() {
		t.Fatalf("hung: %s alone did not finish within %v\nstdout:\n%s\nstderr:\n%s", bin, hangLimit, &stdout, &stderr)
	}
	j := jobtest.Job{Args: []string{"(alone)", bin}, Stdout: tag(stdout.String()), Stderr: stderr.String()}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		j.Code = exit.ExitCode()
	}
	return j
}

func tag(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString("[singleton,0]<stdout>:" + line)
	}
	return b.String()
}

// okLine is a rank's line of success in --tag-output's form.
var okLine = regexp.MustCompile(`(?m)^\[[^,\]]+,\d+\](?:\[[^\]]*\])?<stdout>:ok\b`)

// expectOK checks that the job succeeded and said so: every rank exited
// 0 and one at least printed an ok line.
func expectOK(t *testing.T, j jobtest.Job) {
	t.Helper()
	if j.Code != 0 {
		t.Fatalf("exit status %d\n%v", j.Code, j)
	}
	if !okLine.MatchString(j.Stdout) {
		t.Errorf("no rank printed an ok line\n%v", j)
	}
}

// expectFatal checks that the job failed, its output saying each of
// words.
func expectFatal(t *testing.T, j jobtest.Job, words []string) {
	t.Helper()
	if j.Code == 0 {
		t.Fatalf("the job succeeded; it must fail\n%v", j)
	}
	for _, w := range words {
		if !strings.Contains(j.Stderr, w) {
			t.Errorf("its error output does not say %q\n%v", w, j)
		}
	}
}

// implemented lists the functions docs/c-functions.md (internal/abigen
// writes it from capi's implementations) says the library implements.
func implemented(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/c-functions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n## Implemented\n")
	if !ok {
		t.Fatal("docs/c-functions.md has no \"## Implemented\" section")
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	var names []string
	for _, m := range regexp.MustCompile("`(MPI_[A-Za-z0-9_]+)`").FindAllStringSubmatch(section, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatal("docs/c-functions.md's \"## Implemented\" section names no function")
	}
	return names
}

// comments are C's comments, which a call in them is not.
var comments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

// TestEveryFunctionCalled checks that the programs of testdata/ call
// every function the library implements, as MPI_X( or PMPI_X(.
func TestEveryFunctionCalled(t *testing.T) {
	files, err := filepath.Glob("testdata/*.[ch]")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.WriteString(comments.ReplaceAllString(string(b), " "))
	}
	calls := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bP?(MPI_[A-Za-z0-9_]+)\s*\(`).FindAllStringSubmatch(src.String(), -1) {
		calls[m[1]] = true
	}
	var missing []string
	for _, name := range implemented(t) {
		if !calls[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no program of testdata/ calls %d of the functions docs/c-functions.md lists as implemented: %s",
			len(missing), strings.Join(missing, " "))
	}
}
