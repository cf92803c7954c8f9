package main

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/params"
)

// execLimits are the kernel's bounds on what a new program is given.
type execLimits struct {
	maxString int // one argument or environment string, with its NUL
	maxTotal  int // every string with its NUL plus a pointer to each
}

// Linux's bounds (fs/exec.c): MAX_ARG_STRLEN, 32 pages, per string; in all,
// a quarter of the stack's soft limit, at least 32 pages and at most three
// quarters of the default 8 MiB stack.
const (
	linuxMaxArgStrlen = 32 * 4096
	linuxMaxTotal     = 8 << 20 / 4 * 3
)

func systemExecLimits() execLimits {
	lim := execLimits{maxString: linuxMaxArgStrlen, maxTotal: linuxMaxTotal}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &rl); err == nil && rl.Cur != unix.RLIM_INFINITY {
		lim.maxTotal = int(min(max(rl.Cur/4, linuxMaxArgStrlen), linuxMaxTotal))
	}
	return lim
}

// launcherReserve is room left for what the launcher adds to each rank's
// environment (identity, app context, server, secret, session directory,
// lifeline).
const launcherReserve = 8 << 10

// checkExecSize checks that a rank can be started with argv and env before
// any is: past the limits exec fails with "argument list too long", which
// names neither the culprit nor the limit. mca are the --mca settings,
// carried together in one variable.
func checkExecSize(argv, env []string, mca []params.Setting, lim execLimits) error {
	total := launcherReserve
	for _, s := range argv {
		total += len(s) + 1 + 8
		if len(s)+1 > lim.maxString {
			return fmt.Errorf("an argument of the program is %d bytes long; the system limits one argument to %d bytes",
				len(s), lim.maxString-1)
		}
	}
	for _, kv := range env {
		total += len(kv) + 1 + 8
		if len(kv)+1 <= lim.maxString {
			continue
		}
		name, _, _ := strings.Cut(kv, "=")
		if name == params.LaunchEnvVar {
			return fmt.Errorf("the --mca values %s; gompirun passes them to the ranks together in the environment variable %s, "+
				"which has %d bytes, and the system limits one environment string to %d bytes: "+
				"put large values in a --tune file", largest(mca), name, len(kv), lim.maxString-1)
		}
		return fmt.Errorf("environment variable %s has %d bytes; the system limits one environment string to %d bytes",
			name, len(kv), lim.maxString-1)
	}
	if total > lim.maxTotal {
		return fmt.Errorf("the ranks' arguments and environment would take %d bytes, over the system's limit of %d bytes "+
			"(a quarter of the stack size limit, ulimit -s); the largest environment variables are %s",
			total, lim.maxTotal, largestEnv(env))
	}
	return nil
}

// largest names the largest --mca values, for a message.
func largest(mca []params.Setting) string {
	sorted := append([]params.Setting(nil), mca...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].Value) > len(sorted[j].Value) })
	var parts []string
	for i, s := range sorted {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d bytes)", s.Name, len(s.Value)))
	}
	return strings.Join(parts, ", ")
}

// largestEnv names the largest environment variables, for a message.
func largestEnv(env []string) string {
	sorted := append([]string(nil), env...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	var parts []string
	for i, kv := range sorted {
		if i == 3 {
			break
		}
		name, _, _ := strings.Cut(kv, "=")
		parts = append(parts, fmt.Sprintf("%s (%d bytes)", name, len(kv)))
	}
	return strings.Join(parts, ", ")
}
