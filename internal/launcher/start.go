package launcher

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/gompi/gompi/internal/node"
)

// appOf returns the index of rank's app context.
func (j *job) appOf(rank int) int {
	for i, app := range j.cfg.Apps {
		if rank < app.NP {
			return i
		}
		rank -= app.NP
	}
	return len(j.cfg.Apps) - 1
}

// startAll starts this host's ranks, local, in order (progs holds each
// app context's program, rankCPUs each local rank's CPUs), and returns
// the pids of those started by rank. If one cannot be started the job
// fails and no more are started.
func (j *job) startAll(progs []node.Program, env []string, s *node.Session, rankCPUs [][]int, local []int) map[int]int {
	started := map[int]int{}
	var stdin *os.File
	if len(local) > 0 && local[0] == 0 { // else rank 0's daemon gets it (startStdin)
		var closeStdin func()
		stdin, closeStdin = j.stdinForRank0()
		defer closeStdin()
	}
	for li, rank := range local {
		appNum := j.appOf(rank)
		prog, app := progs[appNum], j.cfg.Apps[appNum]
		var rio node.RankIO
		if rank == 0 {
			rio.Stdin = stdin
		}
		var childEnds []*os.File
		for _, kind := range []streamKind{stdoutStream, stderrStream} {
			r, w, err := os.Pipe()
			if err != nil {
				j.closeFiles(childEnds)
				j.fail(jobFailure(fmt.Sprintf("cannot start rank %d: %v; stopping the job", rank, err), 1))
				return started
			}
			if kind == stdoutStream {
				rio.Stdout = w
			} else {
				rio.Stderr = w
			}
			childEnds = append(childEnds, w)
			var file *os.File
			if j.files != nil {
				file = j.files[rank][kind]
			}
			j.pipes = append(j.pipes, r)
			j.pumps.Add(1)
			go func() {
				defer j.pumps.Done()
				j.fwd.pump(r, rank, kind, fileWriter(file))
			}()
		}
		var cpus []int
		if rankCPUs != nil {
			cpus = rankCPUs[li]
		}
		id := node.RankIdent{Rank: rank, Size: j.np, Local: li, LocalSize: len(local),
			JobID: s.JobID, Server: "unix://" + s.Socket, SessionDir: s.Dir, Secret: s.Secret}
		cmd := prog.Command(node.RankEnv(env, app, appNum, id), rio)
		cmd.Dir = j.cfg.Dir
		cmd.ExtraFiles = []*os.File{j.lifeline} // descriptor 3: node.LifelineFD
		pid, err := node.StartRank(cmd, cpus, func(pid int, status syscall.WaitStatus) {
			j.exits <- exitEvent{rank: rank, pid: pid, status: status}
		})
		j.closeFiles(childEnds) // the child has its copies; EOF comes when it is gone
		if err != nil {
			j.fail(jobFailure(fmt.Sprintf("cannot start rank %d (program %q): %v; stopping the job", rank, prog.Path, err), 1))
			return started
		}
		j.mu.Lock()
		j.pids[rank] = pid
		j.mu.Unlock()
		started[rank] = pid
		j.log.Debug("rank started", "rank", rank, "pid", pid, "cpus", cpus)
	}
	return started
}

// stdinForRank0 returns the file rank 0 reads on this host and a cleanup
// to run once every rank has been started.
func (j *job) stdinForRank0() (*os.File, func()) {
	in, terminal := j.rank0Stdin()
	if !terminal {
		return in, func() {} // rank 0 reads it directly (nil: /dev/null)
	}
	// A terminal: rank 0, in its own process group, would be stopped by
	// SIGTTIN if it read it, so gompirun, in the foreground, copies it
	// through a pipe. The copy ends when rank 0 closes the pipe or the
	// terminal reports EOF.
	r, w, err := os.Pipe()
	if err != nil {
		j.log.Warn("cannot forward the terminal to rank 0; it reads /dev/null", "error", err)
		return nil, func() {}
	}
	go func() {
		_, _ = io.Copy(w, in)
		w.Close()
	}()
	return r, func() { r.Close() }
}

// exitEvent reports that a rank's process ended.
type exitEvent struct {
	rank, pid int
	status    syscall.WaitStatus
	host      string // another host's name, for a rank a daemon ran; "" here
	lost      bool   // never started, or its daemon is gone: its failure is recorded already
}

// fileWriter keeps a nil *os.File from becoming a non-nil io.Writer.
func fileWriter(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}

func (j *job) closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
