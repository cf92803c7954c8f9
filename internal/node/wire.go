package node

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
//	both ways           relay     a child's index, a stream: its wire, relayed (see Relay*)
//
// A launch is in two steps, so that a host that cannot run its ranks ends
// it before any rank starts anywhere: each daemon reads its spec, checks
// that it can start its ranks (their programs exist there) and says ready
// or why not; gompirun then sends go to every one. End of file on the
// daemon's input stops its ranks (or ends it before go); end of file on
// its output means the daemon is gone.
//
// Stdin flows under credit: gompirun has at most StdinWindow stdin frames
// not yet acknowledged, so a rank 0 that reads slowly holds gompirun's
// reading back instead of filling the daemon's memory, and the daemon
// never blocks on rank 0 while signals wait behind the data.
const (
	FrameSpec byte = iota + 1
	FrameSignal
	FrameStarted
	FrameOutput
	FrameExited
	FrameFailed
	FrameReady
	FrameGo
	FramePart
	FrameStdin
	FrameStdinEOF
	FrameStdinAck
	FrameRelay
)

// The streams of an output frame's argument.
const (
	Stdout uint32 = iota
	Stderr
)

const (
	frameHeader = 13
	// MaxPayload bounds a frame's payload: a spec or a chunk of output.
	MaxPayload = 16 << 20
)

// Frame is one message of the daemon's wire.
type Frame struct {
	Kind    byte
	Rank    int32
	Arg     uint32
	Payload []byte
}

// FrameWriter writes frames; it is safe for concurrent use, since the
// output pumps and the exit reports of a daemon's ranks share its output.
type FrameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFrameWriter writes frames to w.
func NewFrameWriter(w io.Writer) *FrameWriter { return &FrameWriter{w: w} }

// Write writes f whole.
func (fw *FrameWriter) Write(f Frame) error {
	var h [frameHeader]byte
	h[0] = f.Kind
	binary.LittleEndian.PutUint32(h[1:], uint32(f.Rank))
	binary.LittleEndian.PutUint32(h[5:], f.Arg)
	binary.LittleEndian.PutUint32(h[9:], uint32(len(f.Payload)))
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if _, err := fw.w.Write(h[:]); err != nil {
		return err
	}
	_, err := fw.w.Write(f.Payload)
	return err
}

// ReadFrame reads one frame. A frame of an unknown kind or too large a
// payload is an error: the peer is not a gompi daemon or gompirun of this
// version (ssh may print a banner, a remote shell its own complaints).
func ReadFrame(r *bufio.Reader) (Frame, error) {
	var h [frameHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Frame{}, err
	}
	f := Frame{Kind: h[0], Rank: int32(binary.LittleEndian.Uint32(h[1:])), Arg: binary.LittleEndian.Uint32(h[5:])}
	n := binary.LittleEndian.Uint32(h[9:])
	if f.Kind < FrameSpec || f.Kind > FrameRelay || n > MaxPayload {
		return Frame{}, fmt.Errorf("not a gompi daemon frame (kind %d, %d bytes): the other end wrote %q", f.Kind, n, printable(h[:]))
	}
	f.Payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.Payload); err != nil {
		return Frame{}, fmt.Errorf("a frame of %d bytes cut short: %w", n, err)
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

// App is one app context of a job: NP ranks running one program with
// the same arguments and exports, as one "-np N program args" of an MPMD
// command line.
type App struct {
	NP      int      // number of ranks, >= 1
	Program string   // executable, looked up in $PATH unless it contains a slash
	Args    []string // its arguments
	Env     []string // NAME=value entries added for these ranks only (-x)
}

// What a relay frame carries.
const (
	RelayIn    uint32 = iota // gompirun → leader: bytes of the child's input
	RelayClose               // gompirun → leader: end of the child's input
	RelayKill                // gompirun → leader: kill the child's agent
	RelayOut                 // leader → gompirun: bytes of the child's output
	RelayErr                 // leader → gompirun: what the child's daemon or agent printed on stderr
	RelayEnded               // leader → gompirun: the child's agent ended; payload: how, "" for success
)

// ChildAgent is a host whose daemon a leader starts: the agent's command
// line as gompirun would run it.
type ChildAgent struct {
	Host string
	Argv []string
}

// DaemonSpec is what a daemon needs to start its host's ranks of a job
// that another gompirun serves.
type DaemonSpec struct {
	Host    string   // this host's name as gompirun calls it, for messages
	Servers []string // the job server's addresses, host:port, one per interface of gompirun's host
	JobID   string   // the job's id
	Secret  []byte   // the job's secret (JSON: base64); it travels inside the agent's channel
	Size    int      // ranks in the whole job
	Env     []string // added to the daemon's own environment for every rank (gompirun's GOMPI_* variables)
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

// EncodeSpec is the payload of the spec frame.
func EncodeSpec(s *DaemonSpec) ([]byte, error) { return json.Marshal(s) }

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
