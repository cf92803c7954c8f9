// Command profcalls is a job for test/plugins: it makes a known sequence
// of MPI calls for an out-of-process profiling tool to record. With
// -kill-plugin, rank 0 kills its own tool process between the two phases
// and goes on; with -die, the last rank kills itself in the middle of the
// job.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/mpi"
)

const plugin = "mca_prof_jsonl"

func main() {
	killPlugin := flag.Bool("kill-plugin", false, "rank 0 kills its tool process between the phases")
	die := flag.Bool("die", false, "the last rank kills itself between the phases")
	flag.Parse()
	if err := run(*killPlugin, *die); err != nil {
		fmt.Fprintln(os.Stderr, "profcalls:", err)
		os.Exit(1)
	}
}

func run(killPlugin, die bool) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.CommWorld()
	rank, size := world.Rank(), world.Size()
	// Phase 1: a message each way between ranks 0 and 1, then collectives.
	switch rank {
	case 0:
		if err := mpi.Send(make([]int64, 10), 1, 7, world); err != nil {
			return err
		}
		if _, err := mpi.Recv(make([]float64, 3), 1, 9, world); err != nil {
			return err
		}
	case 1:
		if _, err := mpi.Recv(make([]int64, 10), 0, 7, world); err != nil {
			return err
		}
		if err := mpi.Send(make([]float64, 3), 0, 9, world); err != nil {
			return err
		}
	}
	if err := mpi.Pcontrol(2); err != nil {
		return err
	}
	if err := mpi.Allreduce(make([]int32, 4), make([]int32, 4), mpi.Sum, world); err != nil {
		return err
	}
	if err := mpi.Barrier(world); err != nil {
		return err
	}
	if killPlugin && rank == 0 {
		if err := killChild(plugin); err != nil {
			return err
		}
	}
	if die && rank == size-1 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	// Phase 2: more messages than a batch holds, so that a dead tool is
	// met before Finalize.
	if err := mpi.Pcontrol(0); err != nil {
		return err
	}
	for i := range 20 {
		if err := mpi.Bcast(make([]byte, 5), i%size, world); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(world); err != nil {
		return err
	}
	return mpi.Finalize()
}

// killChild SIGKILLs this process's child named name and waits until it
// is gone (reaped by the plugin host).
func killChild(name string) error {
	pid, err := child(name)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s (%d): %w", name, pid, err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	return fmt.Errorf("%s (%d) still there 30 s after SIGKILL", name, pid)
}

// child finds the process whose parent is this one and whose command is
// name, from /proc/*/stat ("pid (comm) state ppid ...").
func child(name string) (int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if i < 0 || j < i {
			continue
		}
		// comm is cut at 15 bytes.
		if comm := string(b[i+1 : j]); !strings.HasPrefix(name, comm) {
			continue
		}
		f := strings.Fields(string(b[j+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		return strconv.Atoi(strings.TrimSpace(string(b[:i])))
	}
	return 0, fmt.Errorf("no child process named %s", name)
}
