package pmi

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
)

// ErrNotFound is wrapped by Get when the key does not exist.
var ErrNotFound = errors.New("key not found")

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// protocol is one wire protocol's requests after the handshake.
type protocol interface {
	limits() (keyMax, valMax int)
	put(key, val string) error
	fence() error
	get(key string) (string, error)
	jobAttr(key string) (string, bool, error)
	abort(code int, msg string) error
	finalize() error
}

// ident is what the handshake learns about this process.
type ident struct {
	rank, size, appNum int
	job                string
}

// Client is this process's connection to a PMI launcher. It is safe for
// concurrent use: requests go over the socket one at a time.
type Client struct {
	version Version
	id      ident
	node    Node
	nodeErr error

	mu     sync.Mutex
	conn   *conn
	proto  protocol
	broken error // the first transport or protocol error; the stream is then out of step
	done   bool  // after Finalize or Abort
}

// Node is this rank's node in the job's layout.
type Node struct {
	ID        int   // the launcher's node number
	Ranks     []int // the ranks on this node, ascending
	LocalRank int   // this rank's index in Ranks
}

// Open connects to the PMI launcher that started this process, as the
// environment read through getenv describes it, and runs the handshake.
// want is Auto, V1 or V2. Without a launcher it returns ErrNotLaunched.
func Open(getenv func(string) string, want Version) (*Client, error) {
	e, err := readEnv(getenv, want)
	if err != nil {
		return nil, err
	}
	rw, err := dial(e)
	if err != nil {
		return nil, err
	}
	c, err := handshake(rw, e)
	if err != nil {
		rw.Close()
		return nil, err
	}
	return c, nil
}

// dial opens the socket the environment names.
func dial(e launchEnv) (io.ReadWriteCloser, error) {
	if e.fd >= 0 {
		f := os.NewFile(uintptr(e.fd), "PMI_FD")
		// FileConn duplicates the descriptor with close-on-exec, so the
		// launcher's socket does not leak into this rank's children.
		nc, err := net.FileConn(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("pmi: PMI_FD=%d: not a socket from the launcher: %w", e.fd, err)
		}
		return nc, nil
	}
	nc, err := net.Dial("tcp", e.port)
	if err != nil {
		return nil, fmt.Errorf("pmi: PMI_PORT=%s: %w", e.port, err)
	}
	return nc, nil
}

func handshake(rw io.ReadWriteCloser, e launchEnv) (*Client, error) {
	c := &Client{version: e.version, conn: newConn(rw)}
	var err error
	if e.version == V2 {
		c.proto, c.id, err = handshakeV2(c.conn, e)
	} else {
		c.proto, c.id, err = handshakeV1(c.conn, e)
	}
	if err != nil {
		return nil, fmt.Errorf("pmi: %v %w", e.version, err)
	}
	mapping, found, err := c.proto.jobAttr("PMI_process_mapping")
	if err != nil {
		return nil, fmt.Errorf("pmi: %v reading PMI_process_mapping: %w", e.version, err)
	}
	c.node, c.nodeErr = nodeOf(mapping, found, c.id.rank, c.id.size)
	return c, nil
}

// Version is the protocol in use.
func (c *Client) Version() Version { return c.version }

// Rank is this process's rank in the job.
func (c *Client) Rank() int { return c.id.rank }

// Size is the number of processes in the job.
func (c *Client) Size() int { return c.id.size }

// AppNum is the index of this process's executable on a launch line with
// several; Slurm sends -1.
func (c *Client) AppNum() int { return c.id.appNum }

// JobID names the job's key-value space (PMI-1 kvsname, PMI-2 jobid).
func (c *Client) JobID() string { return c.id.job }

// Node is this rank's node and the ranks that share it, from the
// launcher's PMI_process_mapping. It fails when the launcher gave no
// mapping or one that does not parse.
func (c *Client) Node() (Node, error) {
	if c.nodeErr != nil {
		return Node{}, c.nodeErr
	}
	n := c.node
	n.Ranks = append([]int(nil), n.Ranks...)
	return n, nil
}

// do runs one request with the socket to itself. After a transport or
// protocol error the byte stream is out of step, so every later request
// fails with that error.
func (c *Client) do(what string, f func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return fmt.Errorf("pmi: %s: the client is finalized", what)
	}
	if c.broken != nil {
		return fmt.Errorf("pmi: %s: the connection failed earlier: %w", what, c.broken)
	}
	err := f()
	if err == nil {
		return nil
	}
	// A refusal, a missing key or a foreign value leave the stream in
	// step; anything else (a short read, junk) does not.
	var se *serverError
	var ve valueError
	if !errors.As(err, &se) && !isNotFound(err) && !errors.As(err, &ve) {
		c.broken = err
	}
	return fmt.Errorf("pmi: %v %w", c.version, err)
}

// Fence commits this rank's puts and waits until every rank has called
// Fence; after it, every rank's puts before it are visible to Get.
func (c *Client) Fence() error {
	return c.do("fence", c.proto.fence)
}

// Abort asks the launcher to end the whole job. The launcher may kill the
// process at any moment after; PMI-1 carries code but not msg, PMI-2 msg
// but not code, so the caller should print msg and exit with code itself
// if Abort returns.
func (c *Client) Abort(code int, msg string) error {
	return c.do("abort", func() error {
		err := c.proto.abort(code, msg)
		c.done = true
		return err
	})
}

// Finalize tells the launcher this process is done with PMI and closes
// the connection. The launcher counts a process that exits without it as
// failed.
func (c *Client) Finalize() error {
	err := c.do("finalize", c.proto.finalize)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done = true
		if cerr := c.conn.rw.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("pmi: closing the connection: %w", cerr)
		}
	}
	return err
}
