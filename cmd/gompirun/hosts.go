package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/plm"
	"github.com/gompi/gompi/internal/hostmap"
	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/internal/reaper"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// hostOptions are the options that place the ranks on hosts.
type hostOptions struct {
	hosts      string // --host
	hostfile   string
	mapBy      string
	rankBy     string
	perNode    int
	displayMap bool
	prefix     string // where gompirun is installed on the other hosts
	// The Slurm allocation gompirun runs in, if any: SLURM_JOB_NODELIST
	// and SLURM_TASKS_PER_NODE.
	slurmNodes, slurmTasks string
}

// given reports whether the ranks may go to other hosts.
func (h *hostOptions) given() bool { return h.hosts != "" || h.hostfile != "" || h.slurmNodes != "" }

// placement maps the job's ranks onto the hosts the options name, or onto
// this host alone (local, with its usable CPUs as slots).
func placement(o *options, local hostmap.Host) (*hostmap.Map, error) {
	var hosts []hostmap.Host
	source := "the hostfile's hosts"
	if o.hostOpts.slurmNodes != "" && o.hostOpts.hostfile == "" {
		var err error
		if hosts, err = hostmap.SlurmHosts(o.hostOpts.slurmNodes, o.hostOpts.slurmTasks); err != nil {
			return nil, fmt.Errorf("the Slurm allocation (SLURM_JOB_NODELIST=%s, SLURM_TASKS_PER_NODE=%s): %w",
				o.hostOpts.slurmNodes, o.hostOpts.slurmTasks, err)
		}
		source = "the Slurm allocation"
	}
	if o.hostOpts.hostfile != "" {
		f, err := os.Open(o.hostOpts.hostfile)
		if err != nil {
			return nil, fmt.Errorf("--hostfile: %w", err)
		}
		defer f.Close()
		if hosts, err = hostmap.ParseHostfile(o.hostOpts.hostfile, f); err != nil {
			return nil, fmt.Errorf("--hostfile: %w", err)
		}
		if len(hosts) == 0 { // not this host alone: the file was meant to list hosts
			return nil, fmt.Errorf("--hostfile: %s names no host: want lines such as \"h1 slots=4\"", o.hostOpts.hostfile)
		}
	}
	if o.hostOpts.hosts != "" {
		sel, err := hostmap.ParseHosts(o.hostOpts.hosts)
		if err != nil {
			return nil, fmt.Errorf("--host: %w", err)
		}
		if hosts == nil {
			hosts = sel
		} else if hosts, err = hostmap.Restrict(hosts, source, sel); err != nil {
			return nil, fmt.Errorf("--host: %w", err)
		}
	}
	mo := hostmap.Options{PerNode: o.hostOpts.perNode, Oversubscribe: o.oversubscribe, Local: local}
	var err error
	if o.hostOpts.mapBy != "" {
		if mo.MapBy, err = hostmap.ParseMapBy(o.hostOpts.mapBy); err != nil {
			return nil, err // it names the flag
		}
	}
	if o.hostOpts.rankBy != "" {
		if mo.RankBy, err = hostmap.ParseRankBy(o.hostOpts.rankBy); err != nil {
			return nil, err // it names the flag
		}
	}
	for _, a := range o.apps {
		mo.NP = append(mo.NP, a.np)
	}
	return hostmap.Place(hosts, mo)
}

// applyPlacement sets each app context's rank count from the map (a
// context without -np filled the free slots) and returns each rank's
// host, and which of the map's hosts is this one ("" if none is).
func applyPlacement(o *options, m *hostmap.Map, isLocal func(string) bool) (hosts []string, here string, err error) {
	for i := range o.apps {
		o.apps[i].np = 0
	}
	for _, p := range m.Procs {
		o.apps[p.App].np++
	}
	for _, h := range m.Hosts {
		if !isLocal(h.Name) {
			continue
		}
		if here != "" && here != h.Name {
			return nil, "", fmt.Errorf("hosts %s and %s are both this host: name it once", here, h.Name)
		}
		here = h.Name
	}
	for _, p := range m.Procs {
		hosts = append(hosts, m.Hosts[p.Node].Name)
	}
	return hosts, here, nil
}

// isLocalHost reports whether name is this host: its host name (or the
// first label of it), localhost, or a name whose addresses include one of
// this host's.
func isLocalHost(name string) bool {
	self, _ := os.Hostname()
	short, _, _ := strings.Cut(self, ".")
	if name == "localhost" || name == self || name == short {
		return true
	}
	ips, err := net.LookupHost(name)
	if err != nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		for _, ip := range ips {
			if parsed := net.ParseIP(ip); parsed != nil && parsed.Equal(ipn.IP) {
				return true
			}
		}
	}
	return false
}

// treeSpawner is a plm component whose agent works from every host of a
// job, so that daemons can start each other's (a tree launch).
type treeSpawner interface{ TreeFanout() int }

// agent is how gompirun starts its daemons on the other hosts.
type agent struct {
	command func(host string, argv []string) (*exec.Cmd, error)
	fanout  int // see launcher.Config.Fanout; 0 for a component that is no treeSpawner
	close   func() error
}

// launchAgent selects the plm component that starts gompirun's daemon on
// the other hosts, with the parameters the job's env sets; users is each
// host's login from the hostfile (user@host).
func launchAgent(env []string, users map[string]string, log hclog.Logger) (*agent, error) {
	in, err := params.EnvInputs(env)
	if err != nil {
		return nil, err
	}
	// A logger of its own: Load sets its level from mca_base_verbose.
	sys, err := mca.Load(mca.Options{Logger: log.ResetNamed("gompirun"), QuietWarnings: true, Params: pmpi.RegisterParams}, in)
	if err != nil {
		return nil, err
	}
	fw, err := sys.Framework(plm.Name)
	if err != nil {
		return nil, errors.Join(err, sys.Close())
	}
	c, name, err := plm.Select(context.Background(), fw)
	if err != nil {
		return nil, errors.Join(err, sys.Close())
	}
	a := &agent{close: sys.Close}
	if t, ok := c.(treeSpawner); ok {
		a.fanout = t.TreeFanout()
	}
	log.Debug("launching on other hosts", "plm", name, "fanout", a.fanout)
	a.command = func(host string, argv []string) (*exec.Cmd, error) {
		if u := users[host]; u != "" {
			host = u + "@" + host
		}
		cmd, err := c.Command(host, argv)
		if err != nil {
			return nil, fmt.Errorf("plm %s: %w", name, err)
		}
		return cmd, nil
	}
	return a, nil
}

// daemonCommand is the daemon's command line on the other hosts, whose
// installation mirrors this one (or is under --prefix): gompi-daemon
// where gompirun has it beside itself here, else gompirun in its daemon
// mode.
func daemonCommand(prefix, exe string) []string {
	beside := reaper.Beside(exe, node.DaemonName) != ""
	dir := filepath.Dir(exe)
	if prefix != "" {
		dir = filepath.Join(prefix, "bin")
		exe = filepath.Join(dir, "gompirun")
	}
	if beside {
		return []string{filepath.Join(dir, node.DaemonName)}
	}
	return []string{exe, node.DaemonFlag}
}

// mapPrinter prints the job's map with each rank's CPUs, as the launcher
// reports them once every host is ready (launcher.Config.ShowMap).
func mapPrinter(w io.Writer, m *hostmap.Map) func(cpus [][]int) error {
	return func(cpus [][]int) error {
		binding := make([]string, len(m.Procs))
		for r := range binding {
			if r < len(cpus) && cpus[r] != nil {
				binding[r] = "cpus " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(cpus[r])), ","), "[]")
			}
		}
		return hostmap.WriteMap(w, m, binding)
	}
}
