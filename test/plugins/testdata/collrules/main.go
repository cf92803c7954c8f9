// Command collrules runs a few collectives on the world, on a dup of it
// and on a dup of the dup, checking every result, under the coll decision
// plugin of test/plugins. With "kill" each rank first kills its own plugin
// process before making the last communicator; with "kill-one" only rank 1
// does. It prints "ok rank R" when every check passed.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if err := mpi.Init(); err != nil {
		fail("init: %v", err)
	}
	world := mpi.CommWorld()
	rank := world.Rank()
	run(world)
	dup, err := world.Dup()
	if err != nil {
		fail("dup: %v", err)
	}
	run(dup)
	if mode == "kill" || (mode == "kill-one" && rank == 1) {
		killPlugin()
	}
	dup2, err := dup.Dup()
	if err != nil {
		fail("dup of dup: %v", err)
	}
	run(dup2)
	if err := mpi.Finalize(); err != nil {
		fail("finalize: %v", err)
	}
	fmt.Printf("ok rank %d\n", rank)
}

// run checks a bcast, an allreduce and a gather on c.
func run(c mpi.Comm) {
	n, r := c.Size(), c.Rank()
	buf := make([]int64, 1000)
	if r == 0 {
		for i := range buf {
			buf[i] = int64(i * 7)
		}
	}
	if err := mpi.Bcast(buf, 0, c); err != nil {
		fail("bcast on %s: %v", c.Name(), err)
	}
	for i, v := range buf {
		if v != int64(i*7) {
			fail("bcast on %s: element %d is %d, want %d", c.Name(), i, v, i*7)
		}
	}
	send, recv := make([]int64, 4096), make([]int64, 4096)
	for i := range send {
		send[i] = int64(r + i)
	}
	if err := mpi.Allreduce(send, recv, mpi.Sum, c); err != nil {
		fail("allreduce on %s: %v", c.Name(), err)
	}
	for i, v := range recv {
		if want := int64(n*i + n*(n-1)/2); v != want {
			fail("allreduce on %s: element %d is %d, want %d", c.Name(), i, v, want)
		}
	}
	all := make([]int64, n)
	if err := mpi.Gather([]int64{int64(r)}, all, 0, c); err != nil {
		fail("gather on %s: %v", c.Name(), err)
	}
	for i, v := range all {
		if r == 0 && v != int64(i) {
			fail("gather on %s: block %d is %d", c.Name(), i, v)
		}
	}
}

// killPlugin SIGKILLs this process's child mca_coll_rules and waits until
// it has exited (its parent reaps it).
func killPlugin() {
	pid := childNamed("mca_coll_rules")
	if pid == 0 {
		fail("no child process mca_coll_rules to kill")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		fail("kill %d: %v", pid, err)
	}
	// Once killed it never runs again; wait for the kernel to end it, so
	// that the next request surely finds it gone.
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || procState(string(st)) == "Z" {
			return
		}
		syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// childNamed returns the pid of this process's child called name, or 0.
func childNamed(name string) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		st, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(st)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open || s[open+1:close] != name[:min(len(name), 15)] {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			return pid
		}
	}
	return 0
}

func procState(stat string) string {
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL: %s\n", fmt.Sprintf(format, args...))
	os.Exit(1)
}
