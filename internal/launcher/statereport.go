package launcher

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/rte/rtepb"
)

// stateAnswerWait is how long gompirun waits for the ranks' state reports
// unless told otherwise (Config.StateAnswerWait): a rank that has not
// answered by then is stopped, or starved of CPU.
const stateAnswerWait = time.Second

// answerWait is how long this job's state reports wait for the ranks.
func (j *job) answerWait() time.Duration {
	if j.cfg.StateAnswerWait > 0 {
		return j.cfg.StateAnswerWait
	}
	return stateAnswerWait
}

// reportState asks every rank what it is doing and prints the answers
// with what they say together (see writeState). alive holds the ranks not
// seen exiting.
func (j *job) reportState(ctx context.Context, why string, alive map[int]int) {
	wait := j.answerWait()
	reports := j.srv.CollectState(ctx, j.cfg.StackTraces, wait)
	j.mu.Lock()
	procs := make([]string, len(j.pids)) // each rank's process, named as in failures
	for rank, pid := range j.pids {
		host := ""
		if h := j.remote[rank]; h != nil {
			host = h.name
		}
		procs[rank] = pidOn(pid, host)
	}
	j.mu.Unlock()
	gone := make([]string, len(procs))
	for rank := range procs {
		connected, finalized := j.srv.RankState(rank)
		_, running := alive[rank]
		switch {
		case !running:
			gone[rank] = "has exited"
		case finalized:
			gone[rank] = "has called Finalize"
		case !connected:
			gone[rank] = "has not reached Init's connection to gompirun yet"
		}
	}
	writeState(j.term.stderr(), why, procs, gone, reports, wait)
}

// writeState prints the ranks' reports: what each waits for, then what
// they say together: cycles of ranks waiting for each other (a deadlock)
// and receives whose sender sent something else.
// gone[rank], when not empty, says why a rank could not answer: it
// exited, or never connected; a rank with neither did not answer within
// wait.
func writeState(w io.Writer, why string, procs, gone []string, reports []*rtepb.StateReport, wait time.Duration) {
	fmt.Fprintf(w, "gompirun: job state (%s):\n", why)
	for rank, rep := range reports {
		who := fmt.Sprintf("  rank %d (%s)", rank, procs[rank])
		switch {
		case rep == nil && gone[rank] != "":
			fmt.Fprintf(w, "%s %s\n", who, gone[rank])
			continue
		case rep == nil:
			fmt.Fprintf(w, "%s did not answer within %v: it is stopped, not scheduled, or not in MPI yet\n", who, wait)
			continue
		case len(rep.Ops) == 0:
			fmt.Fprintf(w, "%s has no pending MPI operation: it runs outside MPI, or has finished\n", who)
		}
		for _, op := range rep.Ops {
			fmt.Fprintf(w, "%s %s\n", who, describeOp(op))
		}
		if rep.UnexpectedTotal > 0 {
			var msgs []string
			for _, m := range rep.Unexpected {
				msgs = append(msgs, describeMessage(m))
			}
			more := ""
			if n := int(rep.UnexpectedTotal) - len(rep.Unexpected); n > 0 {
				more = fmt.Sprintf("; and %d more", n)
			}
			fmt.Fprintf(w, "%s has %d unexpected message(s): %s%s\n", who, rep.UnexpectedTotal, strings.Join(msgs, "; "), more)
		}
	}
	for _, line := range analyze(reports) {
		fmt.Fprintf(w, "gompirun: %s\n", line)
	}
	for rank, rep := range reports {
		if rep != nil && rep.Stacks != "" {
			fmt.Fprintf(w, "gompirun: goroutines of rank %d:\n%s\n", rank, strings.TrimRight(rep.Stacks, "\n"))
		}
	}
	fmt.Fprintln(w, "gompirun: end of job state")
}

// describeOp says what a pending operation is and who waits on it.
func describeOp(op *rtepb.PendingOp) string {
	var b strings.Builder
	if op.Kind == "finalize" {
		// Finalize's wait is for every rank, not a peer; the report
		// gives its call site only.
		call := finalizeCall(op)
		b.WriteString("waits in " + call)
		if op.Site != "" {
			fmt.Fprintf(&b, " at %s", op.Site)
		}
		b.WriteString(" for every rank to call " + call)
		return b.String()
	}
	if op.Kind == "deferred" {
		// Not begun: no message of theirs is pending anywhere yet.
		fmt.Fprintf(&b, "has started %d non-blocking call(s) that begin at its next MPI call", op.Bytes)
		return b.String()
	}
	if op.Call != "" {
		fmt.Fprintf(&b, "waits in %s", op.Call)
		if op.Site != "" {
			fmt.Fprintf(&b, " at %s", op.Site)
		}
		fmt.Fprintf(&b, " for %v: ", time.Duration(op.WaitedNs).Round(time.Millisecond))
	} else {
		b.WriteString("has posted, and nothing waits on: ")
	}
	switch op.Kind {
	case "send":
		fmt.Fprintf(&b, "send to %s", peerName(op.Peer, op.PeerWorld))
	case "probe":
		fmt.Fprintf(&b, "probe for a message from %s", peerName(op.Peer, op.PeerWorld))
	case "coll":
		fmt.Fprintf(&b, "the part of %s in shared memory", peerName(op.Peer, op.PeerWorld))
	default:
		fmt.Fprintf(&b, "receive from %s", peerName(op.Peer, op.PeerWorld))
	}
	if op.Collective != "" {
		fmt.Fprintf(&b, " inside %s", op.Collective)
	} else {
		fmt.Fprintf(&b, ", %s", tagName(op.Tag))
	}
	fmt.Fprintf(&b, ", comm %s", op.Comm)
	if op.Kind != "probe" && op.Kind != "coll" {
		fmt.Fprintf(&b, ", %d bytes", op.Bytes)
	}
	return b.String()
}

func describeMessage(m *rtepb.UnexpectedMessage) string {
	s := fmt.Sprintf("from %s", peerName(m.From, m.FromWorld))
	if m.Collective != "" {
		s += " inside " + m.Collective
	} else {
		s += ", " + tagName(m.Tag)
	}
	s += fmt.Sprintf(", comm %s, %d bytes", m.Comm, m.Bytes)
	if m.Probed {
		s += ", matched by Mprobe and not yet received"
	}
	return s
}

func peerName(rank, world int32) string {
	switch {
	case world < 0:
		return "any rank"
	case rank == world:
		return fmt.Sprintf("rank %d", rank)
	}
	return fmt.Sprintf("rank %d (world rank %d)", rank, world)
}

func tagName(tag int32) string {
	if tag < 0 {
		return "any tag"
	}
	return fmt.Sprintf("tag %d", tag)
}

// edge is one rank waiting for another: the operation it waits on.
type edge struct {
	to int
	op *rtepb.PendingOp
}

// analyze finds what the reports say together: every cycle of ranks that
// wait for each other, and every waited receive that its sender answered
// with a message of another tag or communicator.
func analyze(reports []*rtepb.StateReport) []string {
	waits := make([][]edge, len(reports))
	for rank, rep := range reports {
		if rep == nil {
			continue
		}
		for _, op := range rep.Ops {
			if op.Call != "" && op.PeerWorld >= 0 && int(op.PeerWorld) < len(reports) && int(op.PeerWorld) != rank {
				waits[rank] = append(waits[rank], edge{int(op.PeerWorld), op})
			}
		}
	}
	var out []string
	for _, cycle := range cycles(waits) {
		var parts []string
		for i, rank := range cycle {
			next := cycle[(i+1)%len(cycle)]
			parts = append(parts, fmt.Sprintf("rank %d %s", rank, waitPhrase(waits[rank], next)))
		}
		out = append(out, "deadlock: "+strings.Join(parts, "; "))
	}
	for rank, rep := range reports {
		if rep == nil {
			continue
		}
		for _, op := range rep.Ops {
			if line := mismatch(rank, op, reports); line != "" {
				out = append(out, line)
			}
		}
	}
	for rank := range waits {
		for _, e := range waits[rank] {
			if where, ok := inFinalize(reports[e.to]); ok {
				out = append(out, fmt.Sprintf("rank %d %s, but rank %d waits in %s: it left without the call rank %d waits in",
					rank, waitPhrase(waits[rank], e.to), e.to, where, rank))
			}
		}
	}
	return out
}

// inFinalize reports whether rep is of a rank that waits in Finalize, and
// the call with " at" its call site, if known: "Finalize at main.go:40",
// "MPI_Finalize at hang.c:12".
func inFinalize(rep *rtepb.StateReport) (string, bool) {
	if rep == nil {
		return "", false
	}
	for _, op := range rep.Ops {
		if op.Kind == "finalize" {
			if op.Site != "" {
				return finalizeCall(op) + " at " + op.Site, true
			}
			return finalizeCall(op), true
		}
	}
	return "", false
}

// finalizeCall is the call of a rank's Finalize: MPI_Finalize in a C
// program, Finalize in a Go one (and from a rank that does not say).
func finalizeCall(op *rtepb.PendingOp) string {
	if op.Call != "" {
		return op.Call
	}
	return "Finalize"
}

// waitPhrase says how rank waits for next: "waits to receive from 1 tag 7
// at main.go:42".
func waitPhrase(edges []edge, next int) string {
	for _, e := range edges {
		if e.to != next {
			continue
		}
		op := e.op
		verb := "to receive from"
		switch op.Kind {
		case "send":
			verb = "to send to"
		case "probe":
			verb = "to probe for"
		}
		s := fmt.Sprintf("waits %s %d", verb, next)
		if op.Collective != "" {
			s = fmt.Sprintf("waits for %d inside %s on %s", next, op.Collective, op.Comm)
		} else {
			s += fmt.Sprintf(" %s on %s", tagName(op.Tag), op.Comm)
		}
		if op.Site != "" {
			s += " at " + op.Site
		}
		return s
	}
	return fmt.Sprintf("waits for %d", next)
}

// cycles returns the elementary cycles of the wait-for graph, each once,
// starting at its lowest rank.
func cycles(waits [][]edge) [][]int {
	var out [][]int
	seen := map[string]bool{}
	var path []int
	onPath := make([]bool, len(waits))
	var visit func(start, rank int)
	visit = func(start, rank int) {
		path = append(path, rank)
		onPath[rank] = true
		for _, e := range waits[rank] {
			switch {
			case e.to == start:
				c := slices.Clone(path)
				if key := fmt.Sprint(c); !seen[key] {
					seen[key] = true
					out = append(out, c)
				}
			case e.to > start && !onPath[e.to] && len(out) < 10:
				visit(start, e.to)
			}
		}
		path = path[:len(path)-1]
		onPath[rank] = false
	}
	for start := range waits {
		visit(start, start)
	}
	return out
}

// mismatch explains a waited receive that can only be matched by a
// message its sender did not send: the sender's message to this rank is
// already here, or on its way, with another tag or on another communicator.
func mismatch(rank int, op *rtepb.PendingOp, reports []*rtepb.StateReport) string {
	if op.Kind != "recv" || op.Call == "" || op.PeerWorld < 0 || op.Collective != "" {
		return ""
	}
	matches := func(tag int32, comm string) bool {
		return comm == op.Comm && (op.Tag < 0 || tag == op.Tag)
	}
	var sent []string
	for _, m := range reports[rank].Unexpected {
		if m.FromWorld != op.PeerWorld || m.Collective != "" {
			continue
		}
		switch {
		case m.Probed:
			// A matched probe took it: no receive but its Mrecv gets it.
			sent = append(sent, fmt.Sprintf("%s on %s, taken by a matched probe (Mprobe) for its Mrecv", tagName(m.Tag), m.Comm))
			continue
		case matches(m.Tag, m.Comm):
			return "" // it will match: the report caught it in between
		}
		sent = append(sent, fmt.Sprintf("%s on %s", tagName(m.Tag), m.Comm))
	}
	if peer := int(op.PeerWorld); peer < len(reports) && reports[peer] != nil {
		for _, s := range reports[peer].Ops {
			if s.Kind != "send" || int(s.PeerWorld) != rank || s.Collective != "" {
				continue
			}
			if matches(s.Tag, s.Comm) {
				return ""
			}
			sent = append(sent, fmt.Sprintf("%s on %s", tagName(s.Tag), s.Comm))
		}
	}
	if len(sent) == 0 {
		return ""
	}
	where := ""
	if op.Site != "" {
		where = " at " + op.Site
	}
	return fmt.Sprintf("no send matches: rank %d waits to receive from %d %s on %s%s, but what rank %d sent it has %s",
		rank, op.PeerWorld, tagName(op.Tag), op.Comm, where, op.PeerWorld, strings.Join(sent, ", "))
}
