package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/gompi/gompi/internal/jobfiles"
)

// ownerFile names, in a session directory, the gompirun that made it. When
// every process of a job is killed at once (gompirun, its ranks and the
// reaper: an out-of-memory kill of the whole session, a kill -9 of the
// process group), nobody is left to remove the job's files; the next
// gompirun with the same temporary directory does, once it has seen that
// their owner is gone.
const ownerFile = "owner"

// owner identifies a process across pid reuse: its pid, its start time in
// clock ticks since boot, and its pid namespace (a pid means nothing in
// another one, where the owner may well be alive).
type owner struct {
	pid   int
	start uint64
	ns    string
}

func (o owner) String() string { return fmt.Sprintf("%d %d %s\n", o.pid, o.start, o.ns) }

// selfOwner describes the calling process.
func selfOwner() (owner, error) {
	pid := os.Getpid()
	start, err := startTime(pid)
	if err != nil {
		return owner{}, err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return owner{}, err
	}
	return owner{pid: pid, start: start, ns: ns}, nil
}

func parseOwner(b []byte) (owner, error) {
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return owner{}, fmt.Errorf("%q: want \"PID START NAMESPACE\"", b)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return owner{}, fmt.Errorf("pid %q is not a positive number", f[0])
	}
	start, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return owner{}, fmt.Errorf("start time %q: %w", f[1], err)
	}
	return owner{pid: pid, start: start, ns: f[2]}, nil
}

// gone reports whether o's process has ended, as seen from a process of
// namespace ns; an owner in another namespace is never taken for gone.
func (o owner) gone(ns string) bool {
	if o.ns != ns {
		return false
	}
	start, err := startTime(o.pid)
	return errors.Is(err, os.ErrNotExist) || err == nil && start != o.start
}

// startTime reads a process's start time, field 22 of /proc/PID/stat.
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which may hold spaces and
	// parentheses, start with the state, field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if i < 0 || len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// Logger is what SweepStale reports to; an hclog.Logger is one.
type Logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
}

// SweepStale removes the session directories under tempDir, and the job
// files they lead to, whose gompirun is gone. Only directories of this
// user that name an owner are considered: one without an owner file is
// being made, or comes from a gompirun that did not write one.
func SweepStale(tempDir string, log Logger) {
	// Compiled here, not at init: a daemon, which never sweeps, starts
	// without it.
	sessionName := regexp.MustCompile(`^gompi\.([0-9a-f]{8})(\.[A-Za-z0-9_-]+)?$`)
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return
	}
	entries, err := os.ReadDir(tempDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		m := sessionName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		dir := filepath.Join(tempDir, e.Name())
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		o, err := parseOwner(b)
		if err != nil {
			log.Warn("session directory with an unreadable owner file left in place", "directory", dir, "error", err)
			continue
		}
		if !o.gone(ns) {
			continue
		}
		if err := jobfiles.Remove(m[1], dir); err != nil {
			log.Warn("could not remove the files of a job whose gompirun is gone", "job", m[1], "error", err)
			continue
		}
		log.Info("removed the files of a job whose gompirun is gone", "job", m[1], "directory", dir, "gompirun pid", o.pid)
	}
}
