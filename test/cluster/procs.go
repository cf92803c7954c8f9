package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// netOf returns pid's network namespace, "" for a process that is gone or
// a zombie (an exited process leaves its namespaces before it is reaped).
func netOf(pid int) string {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net")
	if err != nil {
		return ""
	}
	return ns
}

// procsIn returns, for each network namespace in nets, the processes in
// it, in PID order: what ip netns pids reports for a named namespace.
func procsIn(nets map[string]bool) (map[string][]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	in := make(map[string][]int)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ns := netOf(pid); nets[ns] {
			in[ns] = append(in[ns], pid)
		}
	}
	for _, pids := range in {
		sort.Ints(pids)
	}
	return in, nil
}

// pfExiting is the kernel's PF_EXITING: the process has begun to exit.
const pfExiting = 0x4

// stat returns pid's parent and whether it has begun to exit: such a
// process is past return, though its namespaces still show it for a
// moment (and, once it has let go of its memory, without a command line).
// A process that is gone has parent 0.
func stat(pid int) (ppid int, exiting bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: fields follow
	// the last ')', from the third (state) on.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 7 {
		return 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return ppid, flags&pfExiting != 0
}

// cmdline describes pid by its command line.
func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return "(exited)"
	}
	return string(bytes.TrimSpace(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// Leftovers lists what runs or lies on the hosts beyond the hosts
// themselves: every process in a host's network namespace other than its
// anchor, its sshd and those already exiting ("h2: process 1234: sleep
// 60"), and every file in a host's /dev/shm ("h1: /dev/shm/gompi.7.sm")
// and, with PrivateTmp, in its /tmp. A test asserts it is empty once a
// job is over, to show that nothing of the job survived on any host.
// A process counts until it exits: a launcher that returns before its
// remote processes have begun to exit leaves them listed.
func (c *Cluster) Leftovers() []string {
	nets := make(map[string]bool)
	for _, h := range c.hosts {
		nets[h.anchor.net] = true
	}
	var left []string
	in, err := procsIn(nets)
	if err != nil {
		left = append(left, fmt.Sprintf("cannot list processes: %v", err))
	}
	for _, h := range c.hosts {
		for _, pid := range in[h.anchor.net] {
			if pid == h.anchor.pid || c.isDaemon(pid) {
				continue
			}
			// Checked after isDaemon, which fails to recognise an exiting
			// sshd: such a process is already marked exiting.
			if _, exiting := stat(pid); !exiting {
				left = append(left, fmt.Sprintf("%s: process %d: %s", h.name, pid, cmdline(pid)))
			}
		}
		left = append(left, c.filesIn(h, "/dev/shm")...)
		if c.private {
			left = append(left, c.filesIn(h, "/tmp")...)
		}
	}
	return left
}

// filesIn lists the entries of dir on h, but for the shared directories
// a private /tmp keeps.
func (c *Cluster) filesIn(h *host, dir string) []string {
	// /proc/PID/root resolves paths in the anchor's mount namespace.
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(h.anchor.pid) + "/root" + dir)
	if err != nil {
		return []string{fmt.Sprintf("%s: cannot read %s: %v", h.name, dir, err)}
	}
	var left []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !slices.ContainsFunc(c.kept, func(k string) bool { return k == path || strings.HasPrefix(k, path+"/") }) {
			left = append(left, fmt.Sprintf("%s: %s", h.name, path))
		}
	}
	return left
}
