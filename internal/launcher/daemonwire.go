package launcher

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// The daemon's wire: gompirun and the daemon it started on another host
// (through ssh or another agent) talk over the daemon's standard input
// and output, the only channel an agent is sure to carry, and one that
// closes when either end dies. Every message is a frame: a 1-byte kind,
// a 4-byte rank, a 4-byte argument and a 4-byte payload length, little
// endian, then the payload.
//
//	gompirun → daemon   spec      payload: the DaemonSpec as JSON (first, once)
//	                    go        start the ranks (once every host is ready)
//	                    signal    rank, signal number (rank -1: every rank)
//	                    stdin     payload: the next bytes of gompirun's stdin, for rank 0
//	                    stdin-eof gompirun's stdin ended: rank 0's ends too
//	daemon → gompirun   ready     the host can start its ranks; payload: each local
//	                              rank's CPUs as JSON ([][]int by local rank; null: unbound)
//	                    started   rank, pid
//	                    output    rank, stream (0 stdout, 1 stderr), the bytes
//	                    exited    rank, wait status; payload: the pid as text
//	                    failed    rank; payload: why the rank could not start
//	                    part      rank; payload: a profiling tool's name, a NUL, and
//	                              the rank's part of its report (sent once the ranks exited)
//	                    stdin-ack a stdin frame was written to rank 0 (arg 0), or
//	                              thrown away since rank 0's stdin is closed (arg 1)
//	both ways           relay     a child's index, a stream: its wire, relayed (see tree.go)
//
// A launch is in two steps, so that a host that cannot run its ranks ends
// it before any rank starts anywhere: each daemon reads its spec, checks
// that it can start its ranks (their programs exist there) and says ready
// or why not; gompirun then sends go to every one. End of file on the
// daemon's input stops its ranks (or ends it before go); end of file on
// its output means the daemon is gone.
//
// Stdin flows under credit: gompirun has at most stdinWindow stdin frames
// not yet acknowledged, so a rank 0 that reads slowly holds gompirun's
// reading back instead of filling the daemon's memory, and the daemon
// never blocks on rank 0 while signals wait behind the data.
const (
	frameSpec byte = iota + 1
	frameSignal
	frameStarted
	frameOutput
	frameExited
	frameFailed
	frameReady
	frameGo
	framePart
	frameStdin
	frameStdinEOF
	frameStdinAck
	frameRelay
)

const (
	frameHeader = 13
	// maxFrame bounds a payload: a spec or a chunk of output.
	maxFrame = 16 << 20
)

// frame is one message of the daemon's wire.
type frame struct {
	kind    byte
	rank    int32
	arg     uint32
	payload []byte
}

// frameWriter writes frames; it is safe for concurrent use, since the
// output pumps and the exit reports of a daemon's ranks share its output.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (fw *frameWriter) write(f frame) error {
	var h [frameHeader]byte
	h[0] = f.kind
	binary.LittleEndian.PutUint32(h[1:], uint32(f.rank))
	binary.LittleEndian.PutUint32(h[5:], f.arg)
	binary.LittleEndian.PutUint32(h[9:], uint32(len(f.payload)))
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if _, err := fw.w.Write(h[:]); err != nil {
		return err
	}
	_, err := fw.w.Write(f.payload)
	return err
}

// readFrame reads one frame. A frame of an unknown kind or too large a
// payload is an error: the peer is not a gompi daemon or gompirun of this
// version (ssh may print a banner, a remote shell its own complaints).
func readFrame(r *bufio.Reader) (frame, error) {
	var h [frameHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	f := frame{kind: h[0], rank: int32(binary.LittleEndian.Uint32(h[1:])), arg: binary.LittleEndian.Uint32(h[5:])}
	n := binary.LittleEndian.Uint32(h[9:])
	if f.kind < frameSpec || f.kind > frameRelay || n > maxFrame {
		return frame{}, fmt.Errorf("not a gompi daemon frame (kind %d, %d bytes): the other end wrote %q", f.kind, n, printable(h[:]))
	}
	f.payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return frame{}, fmt.Errorf("a frame of %d bytes cut short: %w", n, err)
	}
	return f, nil
}

// printable shows bytes that were not a frame as the text they may be.
func printable(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c < ' ' || c > '~' {
			c = '.'
		}
		out = append(out, c)
	}
	return string(out)
}

// DaemonSpec is what a daemon needs to start its host's ranks of a job
// that another gompirun serves.
type DaemonSpec struct {
	Host    string   // this host's name as gompirun calls it, for messages
	Servers []string // the job server's addresses, host:port, one per interface of gompirun's host
	JobID   string   // the job's id
	Secret  []byte   // the job's secret (JSON: base64); it travels inside the agent's channel
	Size    int      // ranks in the whole job
	Env     []string // added to the daemon's own environment for every rank (see remoteEnv)
	Apps    []App    // the job's app contexts (their NP is ignored: Ranks say which run here)
	Dir     string   // gompirun's working directory: the ranks' where it exists, else the daemon's
	Ranks   []DaemonRank
	Grace   int64 // nanoseconds between SIGTERM and SIGKILL when the daemon stops its ranks
	// Bind is the job's binding policy by name (none, auto, core), which
	// the daemon applies over the CPUs its host allows (see hostCPUs).
	Bind string
	// Stdin says that gompirun forwards its stdin to rank 0 in stdin
	// frames; without it rank 0 reads /dev/null. A daemon without rank 0
	// ignores it.
	Stdin bool

	// Children are the hosts whose daemons this one starts and relays (a
	// tree launch); their specs come relayed.
	Children []ChildAgent `json:",omitempty"`
}

// DaemonRank is one rank a daemon starts.
type DaemonRank struct {
	Rank, Local, App int
}

func (s *DaemonSpec) check() error {
	if s.Size < 1 || s.JobID == "" || len(s.Servers) == 0 || len(s.Secret) == 0 || len(s.Ranks) == 0 {
		return errors.New("the spec lacks the job's size, id, server, secret or ranks")
	}
	for _, c := range s.Children {
		if c.Host == "" || len(c.Argv) == 0 {
			return fmt.Errorf("child host %+v: a child needs a host and the agent's command line", c)
		}
	}
	for _, r := range s.Ranks {
		if r.Rank < 0 || r.Rank >= s.Size || r.Local < 0 || r.Local >= len(s.Ranks) || r.App < 0 || r.App >= len(s.Apps) {
			return fmt.Errorf("rank %+v is outside the job (%d ranks, %d here, %d app contexts)", r, s.Size, len(s.Ranks), len(s.Apps))
		}
	}
	if _, err := parseBind(s.Bind); err != nil {
		return err
	}
	return nil
}

func encodeSpec(s *DaemonSpec) ([]byte, error) { return json.Marshal(s) }

func decodeSpec(b []byte) (*DaemonSpec, error) {
	var s DaemonSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decoding the daemon's spec: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("the daemon's spec: %w", err)
	}
	return &s, nil
}

// server is the job server's address that this host reaches: one on a
// network this host is on, else the first that this host has a route to.
func (s *DaemonSpec) server() (string, error) {
	var nets []*net.IPNet
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() {
				nets = append(nets, ipn)
			}
		}
	}
	for _, addr := range s.Servers {
		host, _, _ := net.SplitHostPort(addr)
		ip := net.ParseIP(host)
		for _, n := range nets {
			if ip != nil && n.Contains(ip) {
				return addr, nil
			}
		}
	}
	for _, addr := range s.Servers {
		if c, err := net.Dial("udp", addr); err == nil { // finds a route; sends nothing
			c.Close()
			return addr, nil
		}
	}
	return "", fmt.Errorf("no route from this host to gompirun's job server at %s", strings.Join(s.Servers, ", "))
}
