// Command rankprog is the rank program of gompirun's integration tests. Its
// first argument picks a behaviour; see the cases in main. Lines it prints
// start with "rank R" so the tests can tell ranks apart.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/params"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: rankprog MODE [ARGS...]"))
	}
	mode, args := os.Args[1], os.Args[2:]
	// Modes that must work without the runtime.
	rank, _ := strconv.Atoi(os.Getenv(jobenv.Rank))
	switch mode {
	case "sleep": // [DIR]: a rank whose minute runs out leaves DIR/ran-out.R
		fmt.Printf("rank %d pid %d\n", rank, os.Getpid())
		time.Sleep(time.Minute)
		if len(args) > 0 {
			if err := os.WriteFile(filepath.Join(args[0], fmt.Sprintf("ran-out.%d", rank)), nil, 0o644); err != nil {
				fail(err)
			}
		}
		return
	case "flood": // DIR: leaves its pid in DIR/up.R, then writes to stdout until it is stopped
		up := filepath.Join(args[0], fmt.Sprintf("up.%d", rank))
		if err := os.WriteFile(up+".new", []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fail(err)
		}
		if err := os.Rename(up+".new", up); err != nil {
			fail(err)
		}
		line := []byte(fmt.Sprintf("rank %d floods %0100d\n", rank, 0))
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				fail(err)
			}
		}
	case "stdin":
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			fail(err)
		}
		fmt.Printf("rank %d stdin=%q\n", rank, b)
		return
	case "cwd":
		wd, err := os.Getwd()
		if err != nil {
			fail(err)
		}
		fmt.Printf("rank %d cwd %s\n", rank, wd)
		return
	case "env":
		for _, name := range args {
			if v, ok := os.LookupEnv(name); ok {
				fmt.Printf("rank %d %s=%s\n", rank, name, v)
			} else {
				fmt.Printf("rank %d %s unset\n", rank, name)
			}
		}
		return
	case "mca":
		in, err := params.DefaultInputs()
		if err != nil {
			fail(err)
		}
		for _, s := range in.CommandLine {
			fmt.Printf("rank %d mca %s=%s\n", rank, s.Name, s.Value)
		}
		for _, f := range in.TuneFiles {
			fmt.Printf("rank %d tune %s\n", rank, f)
		}
		return
	case "affinity":
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			fail(err)
		}
		var cpus []int
		for c := 0; len(cpus) < set.Count(); c++ {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
		fmt.Printf("rank %d cpus=%v gomaxprocs=%d\n", rank, cpus, runtime.GOMAXPROCS(0))
		return
	case "output":
		fmt.Printf("rank %d out line 1\nrank %d out line 2\n", rank, rank)
		fmt.Fprintf(os.Stderr, "rank %d err line\n", rank)
		fmt.Printf("rank %d no newline", rank)
		return
	}

	var sigs chan os.Signal
	if mode == "trap" { // before the pid line, after which the tests signal
		sigs = make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	}
	ctx := context.Background()
	c, err := rte.Connect(ctx)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	job := c.Job()
	rank = job.Rank
	fmt.Printf("rank %d pid %d\n", rank, os.Getpid())

	switch mode {
	case "exchange":
		if err := c.Put(ctx, "card", []byte(fmt.Sprintf("card-of-%d", rank))); err != nil {
			fail(err)
		}
		if err := c.Fence(ctx); err != nil {
			fail(err)
		}
		for q := range job.Size {
			v, err := c.Get(ctx, q, "card")
			if err != nil {
				fail(err)
			}
			fmt.Printf("rank %d got %s from %d\n", rank, v, q)
		}
		if err := c.Fence(ctx); err != nil {
			fail(err)
		}
	case "exit", "kill", "nofinalize", "abort", "spawn":
		if len(args) < 1 {
			fail(fmt.Errorf("%s: want the target rank", mode))
		}
		target, _ := strconv.Atoi(args[0])
		if mode == "spawn" && rank != target {
			// A child left behind in the rank's process group.
			child := exec.Command("sleep", "60")
			if err := child.Start(); err != nil {
				fail(err)
			}
			fmt.Printf("rank %d child %d\n", rank, child.Process.Pid)
		}
		// Every rank reaches this point before the target acts, so the
		// others are running (and must be stopped) when it does.
		if err := c.Fence(ctx); err != nil {
			fail(err)
		}
		if rank != target {
			if err := c.Fence(ctx); err != nil { // fails when the job ends
				fmt.Fprintf(os.Stderr, "rank %d: %v\n", rank, err)
			}
			time.Sleep(time.Minute)
			return
		}
		act(ctx, c, mode, args[1:])
	case "latefail": // TARGET CODE DIR: every rank finalizes, then TARGET exits with CODE and the others wait for DIR/go
		target, _ := strconv.Atoi(args[0])
		code, _ := strconv.Atoi(args[1])
		if err := c.Finalize(ctx); err != nil {
			fail(err)
		}
		if rank == target {
			os.Exit(code)
		}
		for {
			if _, err := os.Stat(filepath.Join(args[2], "go")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Printf("rank %d ran to its end\n", rank)
		return
	case "trap": // catches SIGINT and SIGTERM, finalizes at the first, and says which it got by then
		got := []string{(<-sigs).String()}
		if err := c.Finalize(ctx); err != nil {
			fail(err)
		}
		for more := true; more; {
			select {
			case s := <-sigs:
				got = append(got, s.String())
			default:
				more = false
			}
		}
		fmt.Fprintf(os.Stderr, "rank %d finalized; signals: %s\n", rank, strings.Join(got, ", "))
		return
	case "connected":
		time.Sleep(time.Minute)
	default:
		fail(fmt.Errorf("unknown mode %q", mode))
	}
	if err := c.Finalize(ctx); err != nil {
		fail(err)
	}
}

// act is what the target rank does in the failure modes.
func act(ctx context.Context, c *rte.Client, mode string, args []string) {
	switch mode {
	case "exit", "spawn":
		code, _ := strconv.Atoi(args[0])
		os.Exit(code)
	case "kill":
		if args[0] == "SEGV" {
			// The Go runtime handles SIGSEGV itself; a shell with the same
			// pid dies of it like a C program would.
			err := syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, os.Environ())
			fail(err)
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "nofinalize":
		os.Exit(0)
	case "abort":
		code, _ := strconv.Atoi(args[0])
		if err := c.Abort(ctx, code, args[1], nil); err != nil {
			fail(err)
		}
		time.Sleep(time.Minute) // gompirun kills us
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rankprog:", err)
	os.Exit(99)
}
