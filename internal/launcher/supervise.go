package launcher

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/internal/node"
)

// supervise waits for every started rank to exit, stopping the job on the
// first failure, timeout, signal or cancellation; then it merges the
// profiling parts, lists the reports written and returns the status.
//
// started are this host's ranks (rank -> pid), remote the ranks that
// daemons run on other hosts: their exits come from the daemons, and
// signals go to them through the daemons.
func (j *job) supervise(ctx context.Context, started map[int]int, remote []int) int {
	alive := map[int]int{} // rank -> pid (0: another host's, not known yet)
	for rank, pid := range started {
		alive[rank] = pid
	}
	for _, rank := range remote {
		alive[rank] = 0
	}
	timeout := j.timeout
	stopReq := j.stopReq
	var kill, abandon <-chan time.Time
	grace, forwarded := j.cfg.Grace, ""
	done := ctx.Done()
	signalAll := func(sig syscall.Signal) {
		j.mu.Lock()
		for rank, pid := range alive {
			// A rank that died before this, whose exit is not read yet,
			// did not die of this signal: its own death is the failure.
			// (Another host's daemon reports an exit before its signal.)
			if j.remote[rank] == nil && exited(pid) {
				continue
			}
			if j.sent[rank] == nil {
				j.sent[rank] = map[syscall.Signal]bool{}
			}
			j.sent[rank][sig] = true
		}
		j.mu.Unlock()
		for rank, pid := range alive { // the group still: a dead rank's children may linger
			var err error
			if h := j.remote[rank]; h != nil {
				err = h.signal(rank, sig)
			} else {
				err = node.SignalGroup(pid, sig)
			}
			if err != nil {
				j.log.Warn("cannot signal rank", "rank", rank, "error", err)
			}
		}
	}

	for len(alive) > 0 {
		select {
		case ev := <-j.exits:
			delete(alive, ev.rank)
			j.srv.RankExited(ev.rank)
			if ev.lost {
				continue
			}
			connected, finalized := j.srv.RankState(ev.rank)
			j.log.Debug("rank exited", "rank", ev.rank, "pid", ev.pid, "status", ev.status.ExitStatus(), "signaled", ev.status.Signaled())
			if f, bad := classify(ev, connected, finalized); bad && !j.killedByUs(ev) && !j.aborted(ev.rank) {
				j.fail(f)
			}
		case <-stopReq:
			stopReq = nil
			if forwarded == "" { // the ranks have the user's signal already
				signalAll(syscall.SIGTERM)
			}
			kill = time.After(grace)
			abandon = time.After(grace + reportGrace)
		case <-kill:
			kill = nil
			if forwarded != "" {
				j.srv.End(forwarded)
			}
			signalAll(syscall.SIGKILL)
		case <-abandon:
			abandon = nil
			j.abandon(alive)
		case <-j.cfg.StateRequests:
			j.reportState(ctx, "asked for with SIGQUIT", alive)
		case <-timeout:
			timeout = nil
			secs := seconds(j.cfg.Timeout)
			if j.cfg.ReportStateOnTimeout {
				j.reportState(ctx, "at the timeout, after "+secs+" seconds", alive)
			}
			j.fail(jobFailure("job timed out after "+secs+" seconds; killing ranks", ExitTimeout))
			j.dropOutputLater()
		case sig := <-j.cfg.Signals:
			s, ok := sig.(syscall.Signal)
			if !ok {
				continue
			}
			j.dropOutputLater()
			if j.stopping() {
				signalAll(syscall.SIGKILL) // asked twice: do not wait for the grace period
				continue
			}
			signalAll(s)
			f := jobFailure("received "+node.SignalName(s)+"; forwarded it to the ranks and stopping the job", 128+int(s))
			f.forwarded, forwarded, grace = true, f.msg, max(grace, SignalGrace)
			j.fail(f)
		case <-done:
			done = nil
			j.fail(jobFailure("stopping the job: "+context.Cause(ctx).Error(), 1))
			j.dropOutputLater()
		}
	}

	// Children the ranks left in their process groups go too; the daemons
	// do the same on their hosts, and clean them.
	for _, pid := range started {
		_ = node.SignalGroup(pid, syscall.SIGKILL)
	}
	j.endRemote()
	j.drainOutput()
	for _, path := range append(j.srv.Reports(), j.mergeParts()...) {
		fmt.Fprintf(j.term.stderr(), "gompirun: report written: %s\n", path)
	}

	return j.flushOutput(j.verdict())
}

// reportGrace is how long, after the SIGKILL that ends a stop, another
// host's daemon has to report its ranks' exits. A daemon that does not is
// out of reach: its session may be dead without its agent knowing (ssh
// over a link that went down notices only when TCP gives up, if ever).
const reportGrace = 5 * time.Second

// abandon gives up on the ranks in alive that another host's daemon runs
// and has not reported exiting, reportGrace after the stop's SIGKILL: it
// reports them lost, removes them from alive, and kills their hosts'
// agents, so that the daemons, if they ever hear of it, see their
// sessions end, stop what is left and clean their hosts.
func (j *job) abandon(alive map[int]int) {
	byHost := map[*remoteHost][]int{}
	j.mu.Lock()
	for rank := range alive {
		if h := j.remote[rank]; h != nil {
			byHost[h] = append(byHost[h], rank)
		}
	}
	j.mu.Unlock()
	var lostHosts []*remoteHost
	for _, h := range slices.SortedFunc(maps.Keys(byHost), byName) {
		ranks := byHost[h]
		slices.Sort(ranks)
		var lost []int
		for _, rank := range ranks {
			if !h.finish(rank) {
				continue // its exit is reported, on its way here
			}
			delete(alive, rank)
			j.srv.RankExited(rank)
			lost = append(lost, rank)
		}
		if len(lost) > 0 {
			lostHosts = append(lostHosts, h)
			fmt.Fprintf(j.term.stderr(), "gompirun: lost host %s: %s unaccounted for: it reported no exit %s seconds after the job was stopped (a broken link, or the host is down); killing its launch agent\n",
				h.name, onIt(lost), seconds(j.cfg.Grace+reportGrace))
		}
	}
	killAgents(lostHosts)
	for _, h := range lostHosts {
		h.release()
	}
}

// seconds formats d as a number of seconds, as the messages give them.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// drainOutput waits for the output pumps to reach EOF. A process that
// escaped its rank's process group may still hold a pipe open; after a
// while the pipes are closed so gompirun can exit. Once the output is
// dropped it waits no more: a pump may be stuck writing to a terminal
// nobody reads.
func (j *job) drainOutput() {
	done := make(chan struct{})
	go func() {
		j.pumps.Wait()
		close(done)
	}()
	escaped := time.NewTimer(2 * time.Second)
	defer escaped.Stop()
	defer j.closeFiles(j.pipes)
	for {
		select {
		case <-done:
			return
		case <-j.term.gone:
			return
		case <-escaped.C:
			if !j.outputDropping() { // else it may be the terminal that holds the pumps up
				j.log.Warn("output still open after every rank exited; closing it")
			}
			j.closeFiles(j.pipes)
		case sig := <-j.cfg.Signals:
			if s, ok := sig.(syscall.Signal); ok {
				j.fail(jobFailure("received "+node.SignalName(s)+" while writing the ranks' last output; dropping it", 128+int(s)))
				j.dropOutput()
			}
		case <-j.timeout:
			j.fail(jobFailure("job timed out after "+seconds(j.cfg.Timeout)+" seconds while writing the ranks' last output; dropping it", ExitTimeout))
			j.dropOutput()
		}
	}
}

// dropWait is how long the ranks' output has to be written once they
// are killed, when the user stopped the job (a signal, the timeout):
// what is left is dropped then, so that a terminal or pipe nobody reads
// does not keep gompirun from exiting.
const dropWait = 2 * time.Second

// noteWait bounds the wait for gompirun's last messages once the output
// is dropped: stderr may be the stream nobody reads.
const noteWait = time.Second

// dropOutputLater arranges, once, for the output to be dropped dropWait
// after the ranks' SIGKILL, which comes the grace period after the stop.
func (j *job) dropOutputLater() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.dropTimer == nil {
		j.dropTimer = time.AfterFunc(j.cfg.Grace+dropWait, j.dropOutput)
	}
}

// outputDropping reports whether the output is to be dropped, or is.
func (j *job) outputDropping() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.dropTimer != nil || j.term.dropped.Load()
}

// dropOutput gives up on the ranks' output not written yet (see
// terminal.drop), and closes the pipes to the pumps of the other hosts'
// ranks, so that the daemons' frames behind output nobody can write, their
// ranks' exits among them, still come through.
func (j *job) dropOutput() {
	j.term.drop()
	for h := range j.remoteHosts() {
		h.dropOutput()
	}
}

// flushOutput waits for gompirun's last messages to be written and
// returns code, the job's status. A signal or the timeout meanwhile ends
// the wait, and makes the status say so if the job succeeded; once the
// output is dropped the wait is bounded.
func (j *job) flushOutput(code int) int {
	flushed := j.term.flushed()
	gone := j.term.gone
	var giveUp <-chan time.Time
	for {
		select {
		case <-flushed:
			return code
		case <-gone:
			gone = nil
			giveUp = time.After(noteWait)
		case <-giveUp:
			return code
		case sig := <-j.cfg.Signals:
			if s, ok := sig.(syscall.Signal); ok && code == 0 {
				code = 128 + int(s)
			}
			j.dropOutput()
		case <-j.timeout:
			if code == 0 {
				code = ExitTimeout
			}
			j.dropOutput()
		}
	}
}

// exited reports whether the child pid has ended, reaped or not: then a
// signal gompirun sends it now is not what ends it. WNOWAIT leaves the
// reaping to the rank's own waiting goroutine.
func exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != nil || info.Signo != 0 // ECHILD: reaped already
}
