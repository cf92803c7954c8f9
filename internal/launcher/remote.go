package launcher

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobfiles"
	"github.com/gompi/gompi/internal/node"
)

// remoteHost is a daemon that gompirun started on another host through the
// launch agent, and the ranks it runs.
type remoteHost struct {
	name  string
	proc  agentProc // the agent's process, or the relaying daemon's stand-in for it
	in    io.WriteCloser
	wire  *node.FrameWriter
	ranks []node.DaemonRank
	done  chan struct{} // closed once the daemon's output ended
	ready chan error    // the daemon's answer to its spec: nil, or why it cannot start its ranks

	mu       sync.Mutex
	closed   bool
	isReady  bool
	early    []string     // what the agent and the daemon said before ready
	notReady []string     // the ranks the daemon cannot start, and why
	exited   map[int]bool // ranks whose exit the daemon reported
	outs     map[int][2]*io.PipeWriter
	stdin    *stdinFeed // the credit of the stdin forwarded to rank 0, when it runs there
	cpus     [][]int    // by local rank, the CPUs the daemon bound its ranks to (nil: every CPU), once ready

	kids []*relayedHost // the hosts whose daemons this daemon started (tree launch)
}

// agentProc is the process that carries a daemon's wire: the launch
// agent gompirun ran, or, for a daemon another daemon started, that
// daemon's stand-in (relayedHost).
type agentProc interface {
	Wait() error
	Kill() error
}

// execProc is an agent gompirun ran itself.
type execProc struct{ cmd *exec.Cmd }

func (p execProc) Wait() error { return p.cmd.Wait() }
func (p execProc) Kill() error { return p.cmd.Process.Kill() }

// signal asks the daemon to send sig to rank (-1: all its ranks).
func (h *remoteHost) signal(rank int, sig syscall.Signal) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		return nil // gone: its ranks are lost already
	default:
	}
	if h.closed {
		return nil
	}
	if err := h.wire.Write(node.Frame{Kind: node.FrameSignal, Rank: int32(rank), Arg: uint32(sig)}); err != nil {
		if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			return nil // the daemon, or the one that relays it, is gone: readDaemon reports its ranks lost
		}
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	return nil
}

// release closes the daemon's input: it stops whatever of its ranks is
// left, cleans its host and exits.
func (h *remoteHost) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		h.in.Close()
	}
}

// launchRemote starts a daemon on every host of byHost through the agent
// and hands each its spec; it returns once every daemon is ready to start
// its ranks, or, if one is not (its host cannot be reached, the program
// is missing there), with an error naming the hosts and what they said,
// once every daemon has ended without starting anything. A signal on
// cfg.Signals calls the launch off.
func (j *job) launchRemote(byHost map[string][]node.DaemonRank, spec node.DaemonSpec) error {
	spec.Bind, spec.Stdin = j.cfg.Bind.String(), j.forwardsStdin()
	hosts := make([]string, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var errs []error
	var started []*remoteHost
	for _, n := range treeOf(hosts, j.cfg.Fanout) {
		nspec, kids, kerrs := j.specFor(n, spec)
		errs = append(errs, kerrs...)
		h, err := j.startDaemon(n.host, byHost[n.host], nspec)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot launch on host %s: %w", n.host, err))
			continue
		}
		started = j.serveKids(h, kids, byHost, spec, append(started, h), &errs)
	}
	for _, h := range started {
		select {
		case err := <-h.ready:
			if err != nil {
				errs = append(errs, fmt.Errorf("cannot launch on host %s: %w", h.name, err))
			}
		case sig := <-j.cfg.Signals:
			errs = append(errs, &launchSignalled{sig})
		case <-j.timeout:
			errs = append(errs, j.launchTimedOut(unanswered(started)))
		}
		if len(errs) > 0 {
			break
		}
	}
	if len(errs) > 0 {
		// A daemon that has not answered has started nothing, and its
		// agent may be trying to reach its host for minutes yet (ssh to a
		// host that is down): it is killed rather than waited for.
		killAgents(unanswered(started))
		j.endRemote()
		return errors.Join(errs...)
	}
	return nil
}

// launchSignalled is the launch's error when a signal to gompirun calls
// it off: Run returns 128 plus its number, as it does once ranks run.
type launchSignalled struct{ sig os.Signal }

func (e *launchSignalled) Error() string {
	name := e.sig.String()
	if s, ok := e.sig.(syscall.Signal); ok {
		name = node.SignalName(s)
	}
	return "received " + name + " while launching on the other hosts; no rank was started"
}

// status is gompirun's exit status for the signal.
func (e *launchSignalled) status() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// launchTimedOut is the launch's error when the job's timeout expires
// before every daemon is ready: it names the hosts that had not answered.
func (j *job) launchTimedOut(silent []*remoteHost) error {
	var waiting []string
	for _, h := range silent {
		waiting = append(waiting, h.name)
	}
	sort.Strings(waiting)
	which := "host "
	if len(waiting) > 1 {
		which = "hosts "
	}
	return fmt.Errorf("%w after %s seconds while launching: no answer from %s%s; no rank was started",
		errTimedOut, seconds(j.cfg.Timeout), which, strings.Join(waiting, ", "))
}

// unanswered are the hosts of started whose daemons have not answered.
func unanswered(started []*remoteHost) []*remoteHost {
	var silent []*remoteHost
	for _, h := range started {
		if !h.answered() {
			silent = append(silent, h)
		}
	}
	return silent
}

// answered reports whether the daemon said whether it can start its
// ranks, or its agent ended.
func (h *remoteHost) answered() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.isReady || len(h.ready) > 0
}

// goRemote tells every daemon to start its ranks, then forwards stdin to
// rank 0's if it runs on another host.
func (j *job) goRemote() {
	defer j.startStdin()
	for h := range j.remoteHosts() {
		if err := h.wire.Write(node.Frame{Kind: node.FrameGo}); err != nil {
			j.log.Debug("cannot tell the daemon to start", "host", h.name, "error", err) // readDaemon reports the loss
		}
	}
}

// startDaemon starts the daemon of host name through the agent.
func (j *job) startDaemon(name string, ranks []node.DaemonRank, spec node.DaemonSpec) (*remoteHost, error) {
	cmd, err := j.cfg.Agent(name, j.cfg.Daemon)
	if err != nil {
		return nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the launch agent %s: %w", cmd.Path, err)
	}
	return j.attachDaemon(name, ranks, spec, execProc{cmd}, in, out, errOut), nil
}

// attachDaemon serves the daemon of host name whose wire proc carries (in
// to it, out and errOut from it): its ranks' output, its reports, and its
// spec, sent first.
func (j *job) attachDaemon(name string, ranks []node.DaemonRank, spec node.DaemonSpec, proc agentProc, in io.WriteCloser, out, errOut io.Reader) *remoteHost {
	h := &remoteHost{name: name, proc: proc, in: in, wire: node.NewFrameWriter(in), ranks: ranks,
		done: make(chan struct{}), ready: make(chan error, 1), exited: map[int]bool{}, outs: map[int][2]*io.PipeWriter{}}
	h.stdin = stdinFeedFor(spec.Stdin, ranks)
	for _, r := range ranks {
		var ws [2]*io.PipeWriter
		for _, kind := range []streamKind{stdoutStream, stderrStream} {
			pr, pw := io.Pipe()
			ws[kind] = pw
			var file io.Writer
			if j.files != nil {
				file = fileWriter(j.files[r.Rank][kind])
			}
			j.pumps.Add(1)
			go func() {
				defer j.pumps.Done()
				j.fwd.pump(pr, r.Rank, kind, file)
			}()
		}
		h.outs[r.Rank] = ws
		j.mu.Lock()
		j.remote[r.Rank] = h
		j.mu.Unlock()
	}
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		j.relayDaemonErrors(h, errOut)
	}()
	go j.readDaemon(h, out, relayed)
	spec.Host, spec.Ranks = name, ranks
	b, err := node.EncodeSpec(&spec)
	if err == nil {
		err = h.wire.Write(node.Frame{Kind: node.FrameSpec, Payload: b})
	}
	if err != nil {
		// The agent is gone already: readDaemon reports it, with what it said.
		j.log.Debug("cannot send the daemon its spec", "host", name, "error", err)
	}
	return h
}

// relayDaemonErrors copies what the daemon or the agent print (ssh's own
// complaints among them) to gompirun's stderr, a line at a time, naming
// the host; before the daemon is ready they are kept for the launch's
// error instead.
func (j *job) relayDaemonErrors(h *remoteHost, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		h.mu.Lock()
		if !h.isReady {
			h.early = append(h.early, sc.Text())
			h.mu.Unlock()
			continue
		}
		h.mu.Unlock()
		j.term.write(stderrStream, fmt.Appendf(nil, "gompirun: host %s: %s\n", h.name, sc.Text()))
	}
}

// setReady records the daemon's answer to its spec, once; on a yes it
// prints what the agent said before.
func (j *job) setReady(h *remoteHost, err error) {
	h.mu.Lock()
	if h.isReady || len(h.ready) > 0 {
		h.mu.Unlock()
		return
	}
	early := h.early
	if err == nil {
		h.isReady, h.early = true, nil
	}
	h.mu.Unlock()
	if err == nil {
		for _, l := range early {
			j.term.write(stderrStream, fmt.Appendf(nil, "gompirun: host %s: %s\n", h.name, l))
		}
	}
	h.ready <- err
}

// readDaemon turns the daemon's reports into the job's events until its
// output ends; the ranks it never reported exited are then lost. relayed
// is closed once the daemon's stderr is copied.
func (j *job) readDaemon(h *remoteHost, out io.Reader, relayed <-chan struct{}) {
	defer close(h.done)
	br := bufio.NewReader(out)
	var lostWhy string
	for {
		f, err := node.ReadFrame(br)
		if err != nil {
			if err != io.EOF {
				lostWhy = err.Error()
			}
			break
		}
		rank := int(f.Rank)
		switch f.Kind {
		case node.FrameStarted:
			j.mu.Lock()
			j.pids[rank] = int(f.Arg)
			j.mu.Unlock()
		case node.FrameOutput:
			h.mu.Lock()
			ws, ok := h.outs[rank]
			h.mu.Unlock()
			if ok && f.Arg <= uint32(stderrStream) {
				_, _ = ws[f.Arg].Write(f.Payload)
			}
		case node.FrameExited:
			pid, _ := strconv.Atoi(string(f.Payload))
			h.finish(rank)
			j.exits <- exitEvent{rank: rank, pid: pid, host: h.name, status: syscall.WaitStatus(f.Arg)}
		case node.FrameReady:
			j.noteBinding(h, f.Payload)
			j.setReady(h, nil)
		case node.FrameStdinAck:
			h.stdinAcked(f)
		case node.FramePart:
			tool, part, ok := bytes.Cut(f.Payload, []byte{0})
			if !ok {
				j.log.Warn("a profiling part without a tool's name", "host", h.name, "rank", rank)
				continue
			}
			if err := jobfiles.WritePart(j.sessDir, string(tool), rank, part); err != nil {
				fmt.Fprintf(j.term.stderr(), "gompirun: warning: profiling part of rank %d from host %s: %v; ignored\n", rank, h.name, err)
			}
		case node.FrameRelay:
			h.relay(f)
		case node.FrameFailed:
			h.mu.Lock()
			ready := h.isReady
			if !ready {
				h.notReady = append(h.notReady, fmt.Sprintf("rank %d: %s", rank, f.Payload))
			}
			h.mu.Unlock()
			if !ready {
				continue
			}
			h.finish(rank)
			j.fail(jobFailure(fmt.Sprintf("cannot start rank %d on host %s: %s; stopping the job", rank, h.name, f.Payload), 1))
			j.exits <- exitEvent{rank: rank, host: h.name, lost: true}
		}
	}
	if lostWhy != "" {
		_ = h.proc.Kill() // not a daemon: nobody reads it any more
	}
	<-relayed // what the agent said comes first, and Wait closes its pipes
	defer h.loseKids()
	status := ""
	if err := h.proc.Wait(); err != nil {
		status = ": " + err.Error()
	}
	if lostWhy != "" {
		status += " (" + lostWhy + ")"
	}
	h.mu.Lock()
	ready, said, released := h.isReady, append(h.notReady, h.early...), h.closed
	h.mu.Unlock()
	if !ready {
		for _, r := range h.ranks {
			h.finish(r.Rank) // their output pumps end
		}
		why := "the daemon ended before it could start the ranks" + status
		if len(said) > 0 {
			why += ": " + strings.Join(said, "; ")
		}
		j.setReady(h, errors.New(why))
		return
	}
	if released {
		return // gompirun ended it: the job is over, or its launch was called off
	}
	var lost []int
	for _, r := range h.ranks {
		if h.finish(r.Rank) {
			lost = append(lost, r.Rank)
			defer func() { j.exits <- exitEvent{rank: r.Rank, host: h.name, lost: true} }()
		}
	}
	if len(lost) > 0 {
		j.fail(jobFailure(h.lostMessage(status, lost), 1))
	}
}

// lostMessage says that the connection to h ended (status says how) with
// lost, its ranks, unaccounted for, and, in a tree launch, the ranks of
// the hosts below it, whose daemons' wires it carried.
func (h *remoteHost) lostMessage(status string, lost []int) string {
	below, ranks := h.lostBelow()
	if len(below) == 0 {
		return fmt.Sprintf("lost the connection to host %s%s: %s unaccounted for; stopping the job", h.name, status, onIt(lost))
	}
	parts := []string{rankList(lost) + " on it"}
	for i, b := range below {
		parts = append(parts, rankList(ranks[i])+" on host "+b)
	}
	whose := "whose daemon descends from its"
	if len(below) > 1 {
		whose = "whose daemons descend from its"
	}
	return fmt.Sprintf("lost the connection to host %s%s: %s and %s, %s, are unaccounted for; stopping the job",
		h.name, status, strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1], whose)
}

// finish records that rank's exit is known and closes its output; it
// reports whether it was not known before.
func (h *remoteHost) finish(rank int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.exited[rank] {
		return false
	}
	h.exited[rank] = true
	for _, w := range h.outs[rank] {
		w.Close()
	}
	return true
}

// dropOutput closes the pipes to the pumps of h's ranks' output: an
// output frame for them is then dropped instead of waiting for a pump
// stuck on a terminal nobody reads, and the frames behind it come
// through.
func (h *remoteHost) dropOutput() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ws := range h.outs {
		for _, w := range ws {
			w.Close()
		}
	}
}

// remoteHosts is the set of the job's daemons.
func (j *job) remoteHosts() map[*remoteHost]bool {
	hosts := map[*remoteHost]bool{}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, h := range j.remote {
		hosts[h] = true
	}
	return hosts
}

// endRemote releases every daemon and waits for them to clean their
// hosts; an agent that outlives the grace period is killed.
func (j *job) endRemote() {
	hosts := j.remoteHosts()
	for h := range hosts {
		h.release()
	}
	deadline := time.After(j.cfg.Grace + reportGrace)
	for h := range hosts {
		select {
		case <-h.done:
			continue
		case <-deadline:
		}
		// Every agent left is killed, not this one alone: a daemon that
		// relays others' may be the one that does not end.
		killAgents(slices.Collect(maps.Keys(hosts)))
		break
	}
	for h := range hosts {
		<-h.done
	}
}

// killAgents kills the agents of hosts. Those gompirun ran go first:
// killing a relayed one writes to its leader, which may not read; once
// the leader's agent is dead, that write fails instead of blocking.
func killAgents(hosts []*remoteHost) {
	for _, h := range hosts {
		if _, ok := h.proc.(execProc); ok {
			_ = h.proc.Kill()
		}
	}
	for _, h := range hosts {
		if _, ok := h.proc.(execProc); !ok {
			_ = h.proc.Kill()
		}
	}
}

// byName orders hosts by name.
func byName(a, b *remoteHost) int { return strings.Compare(a.name, b.name) }

// serverAddrs are the addresses of the job server's listener l that other
// hosts may reach: one per address of this host's interfaces that are up,
// loopback excepted. The daemon on each host picks the one it can reach
// (node.DaemonSpec.server), since only it sees its host's routes.
func serverAddrs(l net.Listener) ([]string, error) {
	_, port, _ := net.SplitHostPort(l.Addr().String())
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing this host's interfaces: %w", err)
	}
	var out []string
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLinkLocalUnicast() {
				out = append(out, net.JoinHostPort(ipn.IP.String(), port))
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("this host has no network interface up but loopback: other hosts cannot reach it")
	}
	return out, nil
}

// remoteEnv is what of the ranks' environment here goes to the ranks of
// other hosts: gompi's own variables (the --mca and --tune settings among
// them). The rest (PATH, HOME, TMPDIR...) is the other host's, from the
// daemon's login there, as Open MPI's ranks get theirs; -x exports go
// with their app context.
func remoteEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMPI_") {
			out = append(out, kv)
		}
	}
	return out
}
