package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// SlurmOptions tunes StartSlurm. The zero value is what most tests want.
type SlurmOptions struct {
	// CPUs is how many CPUs every node offers jobs, 2 when zero. The
	// machine need not have them: slurmd takes the configured count.
	CPUs int
}

// Slurm is a Slurm cluster on the simulated hosts: slurmctld on h1, one
// slurmd per host, and a munged in the root namespace that all of them
// share through its socket in the state directory. Its methods are safe
// for concurrent use.
type Slurm struct {
	c       *Cluster
	dir     string // state/slurm: configuration, munge, StateSaveLocation, spools, TmpFS
	conf    string
	name    string    // ClusterName
	munged  *rootProc // in the root namespace
	daemons []*daemon // slurmctld, then the slurmds
	isDown  atomic.Bool
}

// slurmTools are the programs StartSlurm needs, with their Debian
// packages (slurm-wlm pulls in slurmctld, slurmd and slurm-client).
var slurmTools = []struct{ name, pkg string }{
	{"munged", "munge"},
	{"slurmctld", "slurmctld"},
	{"slurmd", "slurmd"},
	{"slurmstepd", "slurmd"},
	{"srun", "slurm-client"},
	{"sinfo", "slurm-client"},
	{"squeue", "slurm-client"},
	{"scancel", "slurm-client"},
}

// slurmLookPath finds a Slurm or munge program, also in /usr/sbin when
// PATH lacks it.
func slurmLookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/" + name); serr == nil {
			return "/usr/sbin/" + name, nil
		}
	}
	return path, err
}

// SlurmAvailable reports whether StartSlurm can run here: nil if so,
// otherwise an error that names what is missing.
func SlurmAvailable() error {
	for _, t := range slurmTools {
		if _, err := slurmLookPath(t.name); err != nil {
			return fmt.Errorf("cluster: Slurm needs %s (Debian package %s, or slurm-wlm and munge): %w", t.name, t.pkg, err)
		}
	}
	return nil
}

// Timeouts of StartSlurm and of the Slurm teardown. They are generous:
// on a loaded machine the daemons take seconds where they usually take
// a fraction of one, and only a broken cluster reaches them.
const (
	slurmStartTimeout = 60 * time.Second // until every node is idle
	slurmClientLimit  = 30 * time.Second // one squeue, scancel or sinfo
	slurmDrainTimeout = 30 * time.Second // until the ended jobs are gone
	slurmStopTimeout  = 10 * time.Second // after SIGTERM, before SIGKILL
)

// StartSlurm starts Slurm on the cluster's hosts and returns once every
// node is idle; the test's cleanup stops it before the hosts go down.
// It writes slurm.conf and cgroup.conf into the cluster's state
// directory and uses nothing from the machine's /etc, /run or /var: the
// hosts' commands find it through Env (Command sets it). The nodes are
// named as the hosts, partition "debug" holds them all, and srun's MPI
// plugins (pmi2, pmix) work across hosts; TmpFS is private per node.
// A job that follows one with steps may wait a second or two for its
// nodes: slurmd pauses while the last step's slurmstepds exit.
//
// The teardown kills the jobs' tasks (SIGKILL: it does not wait for
// tasks that ignore SIGTERM), so that their sruns exit, cancels what is
// left, stops the daemons and munged, and fails the test if a Slurm
// process survives. What runs outside the steps is the test's: the
// command of an salloc outlives its revoked allocation unless salloc
// has --kill-command, and Cluster.Leftovers lists it.
//
// It skips the test when Slurm or munge is missing (see SlurmAvailable)
// and fails it when Slurm does not start. Call it from the test's
// goroutine before the cluster is shared with other goroutines, at most
// once per cluster.
func (c *Cluster) StartSlurm(tb testing.TB, opts SlurmOptions) *Slurm {
	tb.Helper()
	if err := SlurmAvailable(); err != nil {
		tb.Skip(err)
	}
	if opts.CPUs < 0 {
		tb.Fatalf("cluster: Slurm with %d CPUs per node: at least 1 is needed (0 means 2)", opts.CPUs)
	}
	if opts.CPUs == 0 {
		opts.CPUs = 2
	}
	if c.isDown.Load() {
		tb.Fatal("cluster: StartSlurm after the test that built the cluster ended")
	}
	s, err := c.newSlurm()
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	tb.Cleanup(func() {
		start := time.Now()
		s.isDown.Store(true)
		killed, err := s.stop()
		if len(killed) > 0 {
			tb.Logf("cluster: Slurm teardown killed the jobs' processes: %s", strings.Join(killed, "; "))
		}
		if err != nil {
			tb.Errorf("cluster: Slurm teardown: %v", err)
			return
		}
		tb.Logf("cluster: Slurm stopped in %v", time.Since(start).Round(time.Millisecond))
	})
	if err := s.start(opts); err != nil {
		tb.Fatalf("cluster: starting Slurm on %d hosts: %v\n%s", len(c.hosts), err, s.logTails())
	}
	tb.Logf("cluster: Slurm cluster %s up in %v: %d nodes idle, SLURM_CONF=%s",
		s.name, time.Since(start).Round(time.Millisecond), len(c.hosts), s.conf)
	return s
}

// newSlurm claims the cluster's Slurm directory: a second Slurm on the
// same hosts would collide with the first on its ports and files.
func (c *Cluster) newSlurm() (*Slurm, error) {
	s := &Slurm{
		c:    c,
		dir:  filepath.Join(c.state, "slurm"),
		name: fmt.Sprintf("gompi%d", c.subnet.x),
	}
	s.conf = filepath.Join(s.dir, "slurm.conf")
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, errors.New("cluster: StartSlurm called twice on one cluster: the cluster runs one Slurm")
		}
		return nil, fmt.Errorf("cluster: Slurm: %w", err)
	}
	return s, nil
}

// Env returns the environment variables Slurm's commands need to find
// this cluster, to append to a command's environment.
func (s *Slurm) Env() []string { return []string{"SLURM_CONF=" + s.conf} }

// Conf returns the path of the cluster's slurm.conf.
func (s *Slurm) Conf() string { return s.conf }

// Name returns the Slurm cluster's name (ClusterName), unique among the
// clusters that run at once on this machine.
func (s *Slurm) Name() string { return s.name }

// Command returns a command that runs name with args inside host, as
// Cluster.Command does, for Slurm's commands (srun, salloc, sbatch,
// squeue, scontrol...): its environment is the caller's with Env, and
// without the caller's other SLURM_* variables, so that a test run
// inside a Slurm job does not carry that job into this cluster.
func (s *Slurm) Command(host, name string, args ...string) *exec.Cmd {
	cmd := s.c.Command(host, name, args...)
	if s.isDown.Load() && cmd.Err == nil {
		cmd.Err = errors.New("cluster: Slurm used after the test that started it ended")
	}
	cmd.Env = s.environ()
	return cmd
}

func (s *Slurm) environ() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "SLURM_") })
	return append(env, s.Env()...)
}

// client runs a Slurm client command on h1 for StartSlurm or the
// teardown, killing it after slurmClientLimit, and returns its stdout.
func (s *Slurm) client(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), slurmClientLimit)
	defer cancel()
	// Cluster.Command's nsenter argv, run under the context.
	in := s.c.Command(s.c.hosts[0].name, name, args...)
	cmd := exec.CommandContext(ctx, in.Path, in.Args[1:]...)
	cmd.Env = s.environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// start writes the configuration, then starts munged, slurmctld and the
// slurmds, in the order each needs the one before, and waits for the
// nodes to be idle.
func (s *Slurm) start(opts SlurmOptions) error {
	if err := s.writeFiles(opts); err != nil {
		return err
	}
	var err error
	if s.munged, err = startMunged(s.dir); err != nil {
		return err
	}
	ctld, err := s.startDaemon(s.c.hosts[0], "Running as primary controller", "slurmctld", "-D", "-i", "-f", s.conf)
	if err != nil {
		return err
	}
	if err := <-ctld.ready; err != nil {
		return err
	}
	var errs []error
	for _, h := range s.c.hosts {
		if _, err := s.startDaemon(h, "slurmd version", "slurmd", "-D", "-f", s.conf, "-N", h.name); err != nil {
			errs = append(errs, err)
			break
		}
	}
	for _, d := range s.daemons[1:] {
		if err := <-d.ready; err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return s.waitIdle()
}

// startDaemon starts a Slurm daemon on h as one of the cluster's
// daemons, which Leftovers leaves out and the cluster's teardown kills
// should Slurm's own fail.
func (s *Slurm) startDaemon(h *host, readyLine, name string, args ...string) (*daemon, error) {
	exe, err := slurmLookPath(name)
	if err != nil {
		return nil, err
	}
	if err := s.c.startDaemon(h, readyLine, exe, args...); err != nil {
		return nil, err
	}
	d := s.c.daemons[len(s.c.daemons)-1]
	s.daemons = append(s.daemons, d)
	return d, nil
}

// waitIdle polls sinfo until every node is idle.
func (s *Slurm) waitIdle() error {
	deadline := time.Now().Add(slurmStartTimeout)
	for {
		out, err := s.client("sinfo", "--noheader", "--Node", "--format=%N %t")
		if err != nil {
			return err
		}
		idle := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[1] == "idle" {
				idle++
			}
		}
		if idle == len(s.c.hosts) {
			return nil
		}
		for _, d := range s.daemons {
			select {
			case <-d.copied:
				return fmt.Errorf("%s: %s exited before every node was idle", d.host, d.exe)
			default:
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nodes not idle after %v: sinfo says %q", slurmStartTimeout, strings.TrimSpace(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// slurmConf is slurm.conf but for its nodes; %[1]s is the cluster's
// name, %[2]s h1's name and %[3]s its address, %[4]s the Slurm
// directory.
//
// Every path is in the Slurm directory, so that nothing lands in the
// machine's /run, /var or /etc (plugstack.conf too: Debian ships one in
// /etc/slurm). The ports are Slurm's defaults: each host has its own
// network namespace, so clusters running at once cannot collide on them.
// No log files: the daemons run in the foreground and log to stderr,
// which the cluster keeps in its state directory. The cgroup-free
// plugins (linuxproc, task/none) let several slurmds share the
// machine's cgroups; config_overrides makes slurmd take the configured
// CPUs; MailProg must exist; KillWait is short for a quick scancel;
// TmpFS per node keeps pmix's per-step directories apart.
const slurmConf = `ClusterName=%[1]s
SlurmctldHost=%[2]s(%[3]s)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[4]s/munge/munge.socket
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool/%%n
TmpFS=%[4]s/tmp/%%n
SlurmctldPidFile=%[4]s/slurmctld.pid
SlurmdPidFile=%[4]s/slurmd-%%n.pid
PlugStackConfig=%[4]s/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=30
KillWait=2
Waittime=0
`

// slurmPartition is the one partition, which holds every node.
const slurmPartition = "debug"

// cgroupConf keeps slurmd away from systemd, which the hosts do not run.
const cgroupConf = "CgroupPlugin=autodetect\nIgnoreSystemd=yes\n"

// writeFiles makes the Slurm directory's layout: configuration, munge's
// key, and the directories the daemons expect to exist.
func (s *Slurm) writeFiles(opts SlurmOptions) error {
	h1 := s.c.hosts[0]
	var b strings.Builder
	fmt.Fprintf(&b, slurmConf, s.name, h1.name, h1.addr, s.dir)
	for _, h := range s.c.hosts {
		fmt.Fprintf(&b, "NodeName=%s NodeAddr=%s NodeHostname=%s CPUs=%d RealMemory=1000 State=UNKNOWN\n",
			h.name, h.addr, h.name, opts.CPUs)
	}
	fmt.Fprintf(&b, "PartitionName=%s Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n", slurmPartition)
	files := []struct {
		name, text string
	}{{"slurm.conf", b.String()}, {"cgroup.conf", cgroupConf}, {"plugstack.conf", ""}}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(s.dir, f.name), []byte(f.text), 0o644); err != nil {
			return err
		}
	}
	dirs := []string{"state", "spool", "tmp"}
	for _, h := range s.c.hosts {
		dirs = append(dirs, filepath.Join("spool", h.name), filepath.Join("tmp", h.name))
	}
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o755); err != nil {
			return err
		}
	}
	return writeMungeKey(filepath.Join(s.dir, "munge"))
}

// writeMungeKey makes munge's directory (its socket must be reachable by
// all, munged insists) and a fresh key in a private directory under it.
func writeMungeKey(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(dir, "key"), 0o700); err != nil {
		return err
	}
	key := make([]byte, 1024)
	rand.Read(key)
	return os.WriteFile(filepath.Join(dir, "key", "munge.key"), key, 0o600)
}

// Leftovers is Cluster.Leftovers while Slurm runs: it also leaves out
// the processes that are Slurm's daemons' own, which Cluster.Leftovers
// cannot tell from a job's because they leave their parent (slurmctld's
// slurmscriptd, a slurmd fork about to become a slurmstepd). A step's
// slurmstepd is listed: it belongs to a job.
func (s *Slurm) Leftovers() []string {
	exes := daemonExes()
	return slices.DeleteFunc(s.c.Leftovers(), func(entry string) bool {
		// "h2: process 1234: command line"
		f := strings.SplitN(entry, ": ", 3)
		pid, ok := strings.CutPrefix(f[min(1, len(f)-1)], "process ")
		if len(f) != 3 || !ok {
			return false
		}
		exe, err := os.Readlink("/proc/" + pid + "/exe")
		return err == nil && exes[exe]
	})
}
