package launcher

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/gompi/gompi/internal/node"
)

// Launch as a tree: beyond Config.Fanout other hosts, gompirun starts the
// daemons of the first Fanout hosts only (the leaders), and each daemon
// starts those of at most Fanout children through the same agent command,
// which may start theirs in turn: an agent's handshakes happen a level at
// a time, each host making at most Fanout of them. A daemon relays its
// children's wires in frames of kind relay, whose rank is the child's
// index in its spec (node.DaemonSpec.Children) and whose argument one of
// node's Relay streams; a grandchild's frames travel inside its parent's
// wire, so that gompirun serves each daemon as one it started itself
// (relayedHost stands in for the agent's process). A daemon whose parent
// is lost is lost too: it sees the end of its input, stops its ranks and
// cleans its host, and so do its children.

// treeNode is a host of a tree launch and the hosts whose daemons its
// daemon starts.
type treeNode struct {
	host string
	kids []*treeNode
}

// treeOf arranges hosts as a tree a level at a time: every host a root
// when there are at most fanout of them (or fanout is 0); else fanout
// roots, then up to fanout children for each host of a level, dealt in
// turn, so that each level is full before the next begins.
func treeOf(hosts []string, fanout int) []*treeNode {
	nodes := func(hs []string) []*treeNode {
		ns := make([]*treeNode, len(hs))
		for i, h := range hs {
			ns[i] = &treeNode{host: h}
		}
		return ns
	}
	if fanout <= 0 || len(hosts) <= fanout {
		return nodes(hosts)
	}
	roots := nodes(hosts[:fanout])
	level, rest := roots, hosts[fanout:]
	for len(rest) > 0 {
		next := nodes(rest[:min(len(rest), len(level)*fanout)])
		for i, n := range next {
			p := level[i%len(level)]
			p.kids = append(p.kids, n)
		}
		level, rest = next, rest[len(next):]
	}
	return roots
}

// specFor is spec with n's children, whose daemons n's starts: those the
// agent can reach from another host. It returns them, and an error for
// each of the others.
func (j *job) specFor(n *treeNode, spec node.DaemonSpec) (node.DaemonSpec, []*treeNode, []error) {
	var kept []*treeNode
	var errs []error
	for _, kid := range n.kids {
		argv, err := j.agentArgv(kid.host)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot launch on host %s: %w", kid.host, err))
			continue
		}
		spec.Children = append(spec.Children, node.ChildAgent{Host: kid.host, Argv: argv})
		kept = append(kept, kid)
	}
	return spec, kept, errs
}

// serveKids serves the daemons that h's daemon starts for kids, and theirs
// in turn, appending them to started.
func (j *job) serveKids(h *remoteHost, kids []*treeNode, byHost map[string][]node.DaemonRank, spec node.DaemonSpec, started []*remoteHost, errs *[]error) []*remoteHost {
	for i, kid := range kids {
		kspec, grandkids, kerrs := j.specFor(kid, spec)
		*errs = append(*errs, kerrs...)
		k := j.startRelayed(h, i, kid.host, byHost[kid.host], kspec)
		started = j.serveKids(k, grandkids, byHost, spec, append(started, k), errs)
	}
	return started
}

// agentArgv is the command line that starts host's daemon through the
// agent, for a leader to run.
func (j *job) agentArgv(host string) ([]string, error) {
	cmd, err := j.cfg.Agent(host, j.cfg.Daemon)
	if err != nil {
		return nil, err
	}
	if cmd.Env != nil {
		return nil, errors.New("the launch agent's command sets its own environment, which a tree launch cannot carry; set plm_rsh_tree_fanout to 0")
	}
	return cmd.Args, nil
}

// relayedHost is gompirun's side of a child's wire, which its leader
// carries: it stands in for the child's agent process.
type relayedHost struct {
	leader   *remoteHost
	index    int32
	out, err *io.PipeWriter // the child's output and stderr, as the leader relays them
	ended    chan struct{}
	once     sync.Once
	why      error       // how the agent ended; set before ended is closed
	host     *remoteHost // the daemon gompirun serves through it; under leader.mu
}

// startRelayed serves the daemon that leader starts, as its index-th
// child, on host name.
func (j *job) startRelayed(leader *remoteHost, index int, name string, ranks []node.DaemonRank, spec node.DaemonSpec) *remoteHost {
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	k := &relayedHost{leader: leader, index: int32(index), out: outW, err: errW, ended: make(chan struct{})}
	leader.mu.Lock()
	leader.kids = append(leader.kids, k) // before the spec goes out: the child's frames may follow at once
	leader.mu.Unlock()
	h := j.attachDaemon(name, ranks, spec, k, relayInput{k}, outR, errR)
	leader.mu.Lock()
	k.host = h
	leader.mu.Unlock()
	return h
}

// end records how the child's agent ended (why, for Wait) and ends its
// streams, once: reading them then fails with readErr, or sees their end
// for nil, as a process's pipes end before its Wait returns.
func (k *relayedHost) end(why, readErr error) {
	k.once.Do(func() {
		k.why = why
		k.out.CloseWithError(readErr)
		k.err.CloseWithError(readErr)
		close(k.ended)
	})
}

func (k *relayedHost) Wait() error {
	<-k.ended
	return k.why
}

func (k *relayedHost) Kill() error {
	return k.leader.wire.Write(node.Frame{Kind: node.FrameRelay, Rank: k.index, Arg: node.RelayKill})
}

// relayInput writes a child's input through its leader.
type relayInput struct{ k *relayedHost }

func (r relayInput) Write(b []byte) (int, error) {
	for n := 0; n < len(b); {
		c := min(len(b)-n, node.MaxPayload)
		if err := r.k.leader.wire.Write(node.Frame{Kind: node.FrameRelay, Rank: r.k.index, Arg: node.RelayIn, Payload: b[n : n+c]}); err != nil {
			return n, fmt.Errorf("through host %s: %w", r.k.leader.name, err)
		}
		n += c
	}
	return len(b), nil
}

func (r relayInput) Close() error {
	return r.k.leader.wire.Write(node.Frame{Kind: node.FrameRelay, Rank: r.k.index, Arg: node.RelayClose})
}

// relay hands a relay frame from h, a leader, to its child.
func (h *remoteHost) relay(f node.Frame) {
	h.mu.Lock()
	var k *relayedHost
	if f.Rank >= 0 && int(f.Rank) < len(h.kids) {
		k = h.kids[f.Rank]
	}
	h.mu.Unlock()
	if k == nil {
		return // a child gompirun no longer serves
	}
	switch f.Arg {
	case node.RelayOut:
		_, _ = k.out.Write(f.Payload)
	case node.RelayErr:
		_, _ = k.err.Write(f.Payload)
	case node.RelayEnded:
		var why error
		if len(f.Payload) > 0 {
			why = errors.New(string(f.Payload))
		}
		k.end(why, nil)
	}
}

// lostBelow is, for each host whose daemon descends from h's, depth
// first, the ranks on it whose exit is not known: those lost with h.
func (h *remoteHost) lostBelow() (hosts []string, ranks [][]int) {
	h.mu.Lock()
	var kids []*remoteHost
	for _, k := range h.kids {
		if k.host != nil {
			kids = append(kids, k.host)
		}
	}
	h.mu.Unlock()
	for _, kh := range kids {
		var lost []int
		kh.mu.Lock()
		for _, r := range kh.ranks {
			if !kh.exited[r.Rank] {
				lost = append(lost, r.Rank)
			}
		}
		kh.mu.Unlock()
		if len(lost) > 0 {
			hosts, ranks = append(hosts, kh.name), append(ranks, lost)
		}
		hs, rs := kh.lostBelow()
		hosts, ranks = append(hosts, hs...), append(ranks, rs...)
	}
	return hosts, ranks
}

// loseKids ends the wires of h's children once h, their leader, is gone:
// reading them fails with why, and their agents' ends are unknown.
func (h *remoteHost) loseKids() {
	h.mu.Lock()
	kids := h.kids
	h.mu.Unlock()
	lost := fmt.Errorf("host %s, which started its daemon, is gone", h.name)
	for _, k := range kids {
		k.end(nil, lost)
	}
}
