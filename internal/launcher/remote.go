package launcher

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// remoteHost is a daemon that gompirun started on another host through the
// launch agent, and the ranks it runs.
type remoteHost struct {
	name  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	wire  *frameWriter
	ranks []DaemonRank
	done  chan struct{} // closed once the daemon's output ended

	mu     sync.Mutex
	closed bool
	exited map[int]bool // ranks whose exit the daemon reported
	outs   map[int][2]*io.PipeWriter
}

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
	if err := h.wire.write(frame{kind: frameSignal, rank: int32(rank), arg: uint32(sig)}); err != nil {
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

// startRemote starts a daemon on every host of byHost through the agent,
// hands each its spec and starts reading its reports. A host whose daemon
// cannot be started fails the job, naming the host and the agent's error.
func (j *job) startRemote(byHost map[string][]DaemonRank, spec DaemonSpec, advertise func(host string) (string, error)) {
	hosts := make([]string, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, name := range hosts {
		ranks := byHost[name]
		server, err := advertise(name)
		if err == nil {
			err = j.startDaemon(name, ranks, spec, server)
		}
		if err != nil {
			nums := make([]string, len(ranks))
			for i, r := range ranks {
				nums[i] = strconv.Itoa(r.Rank)
			}
			j.fail(jobFailure(fmt.Sprintf("cannot launch ranks %s on host %s: %v; stopping the job", strings.Join(nums, ", "), name, err), 1))
			for _, r := range ranks {
				j.exits <- exitEvent{rank: r.Rank, host: name, lost: true}
			}
		}
	}
}

func (j *job) startDaemon(name string, ranks []DaemonRank, spec DaemonSpec, server string) error {
	cmd, err := j.cfg.Agent(name, []string{j.cfg.DaemonExe, DaemonFlag})
	if err != nil {
		return err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the launch agent %s: %w", cmd.Path, err)
	}
	h := &remoteHost{name: name, cmd: cmd, in: in, wire: &frameWriter{w: in}, ranks: ranks,
		done: make(chan struct{}), exited: map[int]bool{}, outs: map[int][2]*io.PipeWriter{}}
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
	spec.Host, spec.Server, spec.Ranks = name, server, ranks
	b, err := encodeSpec(&spec)
	if err != nil {
		return err
	}
	if err := h.wire.write(frame{kind: frameSpec, payload: b}); err != nil {
		// The agent is gone already: readDaemon reports it, with what it said.
		j.log.Debug("cannot send the daemon its spec", "host", name, "error", err)
	}
	return nil
}

// relayDaemonErrors copies what the daemon or the agent print (ssh's own
// complaints among them) to gompirun's stderr, a line at a time, naming
// the host.
func (j *job) relayDaemonErrors(h *remoteHost, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		j.term.write(stderrStream, fmt.Appendf(nil, "gompirun: host %s: %s\n", h.name, sc.Text()))
	}
}

// readDaemon turns the daemon's reports into the job's events until its
// output ends; the ranks it never reported exited are then lost. relayed
// is closed once the daemon's stderr is copied.
func (j *job) readDaemon(h *remoteHost, out io.Reader, relayed <-chan struct{}) {
	defer close(h.done)
	br := bufio.NewReader(out)
	var lostWhy string
	for {
		f, err := readFrame(br)
		if err != nil {
			if err != io.EOF {
				lostWhy = err.Error()
			}
			break
		}
		rank := int(f.rank)
		switch f.kind {
		case frameStarted:
			j.mu.Lock()
			j.pids[rank] = int(f.arg)
			j.mu.Unlock()
		case frameOutput:
			h.mu.Lock()
			ws, ok := h.outs[rank]
			h.mu.Unlock()
			if ok && f.arg <= uint32(stderrStream) {
				_, _ = ws[f.arg].Write(f.payload)
			}
		case frameExited:
			pid, _ := strconv.Atoi(string(f.payload))
			h.finish(rank)
			j.exits <- exitEvent{rank: rank, pid: pid, host: h.name, status: syscall.WaitStatus(f.arg)}
		case frameFailed:
			h.finish(rank)
			j.fail(jobFailure(fmt.Sprintf("cannot start rank %d on host %s: %s; stopping the job", rank, h.name, f.payload), 1))
			j.exits <- exitEvent{rank: rank, host: h.name, lost: true}
		}
	}
	if lostWhy != "" {
		_ = h.cmd.Process.Kill() // not a daemon: nobody reads it any more
	}
	<-relayed // what the agent said comes first, and Wait closes its pipes
	status := ""
	if err := h.cmd.Wait(); err != nil {
		status = ": " + err.Error()
	}
	if lostWhy != "" {
		status += " (" + lostWhy + ")"
	}
	var lost []string
	for _, r := range h.ranks {
		if h.finish(r.Rank) {
			lost = append(lost, strconv.Itoa(r.Rank))
			defer func() { j.exits <- exitEvent{rank: r.Rank, host: h.name, lost: true} }()
		}
	}
	if len(lost) > 0 {
		j.fail(jobFailure(fmt.Sprintf("lost the connection to host %s%s: ranks %s on it are unaccounted for; stopping the job",
			h.name, status, strings.Join(lost, ", ")), 1))
	}
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

// endRemote releases every daemon and waits for them to clean their
// hosts; an agent that outlives the grace period is killed.
func (j *job) endRemote() {
	hosts := map[*remoteHost]bool{}
	j.mu.Lock()
	for _, h := range j.remote {
		hosts[h] = true
	}
	j.mu.Unlock()
	for h := range hosts {
		h.release()
	}
	deadline := time.After(j.cfg.Grace + 5*time.Second)
	for h := range hosts {
		select {
		case <-h.done:
		case <-deadline:
			deadline = nil
			_ = h.cmd.Process.Kill()
			<-h.done
		}
	}
}

// advertiser returns, for a host, the job server's address as that host
// reaches it: the address of this host's interface that routes there
// (found without sending a packet), with the port of l.
func advertiser(l net.Listener) func(host string) (string, error) {
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return func(host string) (string, error) {
		c, err := net.Dial("udp", net.JoinHostPort(host, port))
		if err != nil {
			return "", fmt.Errorf("finding this host's address on the way to %s: %w", host, err)
		}
		defer c.Close()
		ip := c.LocalAddr().(*net.UDPAddr).IP
		return net.JoinHostPort(ip.String(), port), nil
	}
}
