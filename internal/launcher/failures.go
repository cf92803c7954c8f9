package launcher

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/node"
	"github.com/gompi/gompi/internal/rte"
)

// failure is why the job stops and the status gompirun exits with.
type failure struct {
	msg  string // the line to print, without "gompirun: "
	code int
	// A rank's failure: the rank (-1 for the job's own: a timeout, a
	// signal), its pid, what it did, and the peers it saw fail first, when
	// it failed because of them.
	rank, pid int
	what      string
	blames    []int
	// late: the rank failed after calling Finalize, which it left only
	// once every rank had entered it, so no peer waits for it: the job
	// goes on, and the others end as they would, their output kept.
	late bool
	// forwarded: a signal gompirun received, forwarded to the ranks,
	// stops the job: the job server goes on serving them until the
	// supervisor's grace period ends, so that a rank that catches the
	// signal can finalize.
	forwarded bool
}

// follower describes a failure that came after the cause.
func (f *failure) follower() string {
	s := fmt.Sprintf("rank %d (pid %d) %s", f.rank, f.pid, f.what)
	if len(f.blames) > 0 {
		peers := make([]string, len(f.blames))
		for i, p := range f.blames {
			peers[i] = strconv.Itoa(p)
		}
		s += fmt.Sprintf(" (after it saw rank %s fail)", strings.Join(peers, ", "))
	}
	return s
}

// classify decides whether a rank's exit fails the job: a non-zero status,
// a signal, or exit 0 after connecting to the job server but without
// calling Finalize. A rank that never connected and exits 0 is fine.
func classify(ev exitEvent, connected, finalized bool) (failure, bool) {
	ws := ev.status
	var f failure
	switch {
	case ws.Signaled():
		core := ""
		if ws.CoreDump() {
			core = " (core dumped)"
		}
		f = rankFailure(ev, fmt.Sprintf("killed by signal %s%s", node.SignalName(ws.Signal()), core), 128+int(ws.Signal()))
	case ws.ExitStatus() != 0:
		f = rankFailure(ev, fmt.Sprintf("exited with status %d", ws.ExitStatus()), ws.ExitStatus())
	case connected && !finalized:
		return rankFailure(ev, "exited without calling Finalize", 1), true
	default:
		return failure{}, false
	}
	if finalized {
		f.late = true
		f.what += " after calling Finalize"
		f.msg = fmt.Sprintf("rank %d (%s) %s; the other ranks go on to their end", ev.rank, pidOn(ev.pid, ev.host), f.what)
	}
	return f, true
}

// jobFailure is a failure of the job as a whole: a timeout, a signal, a
// rank that could not start.
func jobFailure(msg string, code int) failure { return failure{msg: msg, code: code, rank: -1} }

func rankFailure(ev exitEvent, what string, code int) failure {
	return failure{
		msg:  fmt.Sprintf("rank %d (%s) %s; stopping the job", ev.rank, pidOn(ev.pid, ev.host), what),
		code: code, rank: ev.rank, pid: ev.pid, what: what,
	}
}

// fail records a failure and, at the first one that is not late, asks the
// supervisor to stop the job. The root cause is printed as soon as it is
// known: the first failure that is not a consequence of another (a rank
// that aborted because peers failed is one). The followers are listed when
// the job ends.
func (j *job) fail(f failure) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures = append(j.failures, f)
	if j.cause < 0 && len(f.blames) == 0 {
		j.cause = len(j.failures) - 1
		fmt.Fprintf(j.term.stderr(), "gompirun: %s\n", f.msg)
		// Before the ranks hear that the job ends, and say so: unless
		// nobody reads the terminal.
		select {
		case <-j.term.flushed():
		case <-time.After(causeWait):
		}
	}
	if !f.late && !j.stopped {
		j.stopped = true
		if !f.forwarded {
			j.srv.End(f.msg)
		}
		close(j.stopReq)
	}
}

// causeWait bounds fail's wait for the cause to be written.
const causeWait = 500 * time.Millisecond

// onAbort runs in the job server while the rank's Abort call is pending,
// so the abort is recorded before the rank can be seen exiting.
func (j *job) onAbort(a AbortCall) {
	j.mu.Lock()
	pid, host := j.pids[a.Rank], ""
	if h := j.remote[a.Rank]; h != nil {
		host = h.name
	}
	j.mu.Unlock()
	what := fmt.Sprintf("called Abort with code %d: %s", a.Code, a.Message)
	j.fail(failure{
		msg:    fmt.Sprintf("rank %d (%s) %s; stopping the job", a.Rank, pidOn(pid, host), what),
		what:   what,
		code:   rte.AbortStatus(a.Code),
		rank:   a.Rank,
		pid:    pid,
		blames: a.FailedPeers,
	})
}

// killedByUs reports whether a rank died of a signal gompirun sent it: a
// consequence of the stop, not a failure of its own. A rank that exited
// with a status, or of another signal, failed on its own, even if it did
// so while gompirun was stopping the job.
func (j *job) killedByUs(ev exitEvent) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return ev.status.Signaled() && j.sent[ev.rank][ev.status.Signal()]
}

// aborted reports whether rank's failure is already recorded as its Abort,
// whose exit status follows from it.
func (j *job) aborted(rank int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, f := range j.failures {
		if f.rank == rank {
			return true
		}
	}
	return false
}

func (j *job) stopping() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stopped
}

// verdict settles the cause once every rank is gone, prints it if it was
// not printed yet (every failure blamed a peer whose own end was no
// failure), then the failures that followed, and returns the exit status.
func (j *job) verdict() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.failures) == 0 {
		return 0
	}
	if j.cause < 0 {
		j.cause = 0
		fmt.Fprintf(j.term.stderr(), "gompirun: %s\n", j.failures[0].msg)
	}
	for i := range j.failures {
		if f := &j.failures[i]; i != j.cause && f.rank >= 0 {
			fmt.Fprintf(j.term.stderr(), "gompirun: then %s\n", f.follower())
		}
	}
	return j.failures[j.cause].code
}

// pidOn names a rank's process: its pid, and its host if not this one.
func pidOn(pid int, host string) string {
	if host == "" {
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("pid %d on host %s", pid, host)
}

// lostGrace is how long a rank whose connection to the job server ended
// has for its exit to be reported: a rank that died closes its connection
// before gompirun, or the daemon of its host, sees its exit.
const lostGrace = 2 * time.Second

// onLost runs when a rank's connection to the job server ends before it
// finalized or exited: unless its exit comes within lostGrace, the link
// to its host broke, or its host is gone, and the job stops (lostFailure).
func (j *job) onLost(rank int) {
	go func() {
		time.Sleep(lostGrace)
		if f, ok := j.lostFailure(rank); ok {
			j.fail(f)
		}
	}()
}

// lostFailure is the failure of a rank whose connection ended lostGrace
// ago, if it is one: not if it exited or finalized meanwhile, nor for a
// rank of this host, gompirun's child, whose exit is always seen. Such a
// rank's connection ends without it when the server's keepalive finds it
// not answering, stopped in a debugger or by a signal: the job waits.
func (j *job) lostFailure(rank int) (failure, bool) {
	if j.srv.exitedOrDone(rank) || j.stopping() {
		return failure{}, false
	}
	j.mu.Lock()
	pid, h := j.pids[rank], j.remote[rank]
	j.mu.Unlock()
	if h == nil {
		j.log.Debug("the connection of a rank of this host ended before it exited: it may be stopped", "rank", rank, "pid", pid)
		return failure{}, false
	}
	what := "lost contact: its connection to gompirun broke and it was not seen exiting (a broken link, or its host is down)"
	return failure{msg: fmt.Sprintf("rank %d (%s) %s; stopping the job", rank, pidOn(pid, h.name), what),
		what: what, code: 1, rank: rank, pid: pid}, true
}
