package mca

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin/runner"
)

// refusalGrace bounds how long a plugin refused at start-up (it wrote
// something else than its handshake on stdout, or none in time) has to
// end on its own before it is killed: what it writes on stderr after its
// stdout is why, and the refusal's message carries it. Only a plugin that
// keeps its stderr open waits this long.
const refusalGrace = 2 * time.Second

// procRunner runs a plugin's process for go-plugin, as go-plugin's own
// runner does, except that a kill while the plugin starts (go-plugin kills
// it at once when its handshake fails) first closes its lifeline, which
// ends a plugin built with the SDK, and waits, up to refusalGrace, for its
// stderr to reach end of file.
type procRunner struct {
	cmd      *exec.Cmd
	stdout   io.ReadCloser
	stderr   *eofReader
	lifeline *os.File
	pid      int
	starting atomic.Bool // the handshake is not done: a kill waits for stderr
}

func newProcRunner(cmd *exec.Cmd, lifeline *os.File) (*procRunner, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	r := &procRunner{cmd: cmd, stdout: stdout, stderr: &eofReader{r: stderr, eof: make(chan struct{})}, lifeline: lifeline}
	r.starting.Store(true)
	return r, nil
}

func (r *procRunner) Start(context.Context) error {
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.pid = r.cmd.Process.Pid
	return nil
}

func (r *procRunner) Wait(context.Context) error { return r.cmd.Wait() }

func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if r.starting.Swap(false) {
		_ = r.lifeline.Close()
		select {
		case <-r.stderr.eof:
		case <-time.After(refusalGrace):
		}
	}
	err := r.cmd.Process.Kill()
	// A child the plugin left may hold its stdout or stderr open, and
	// go-plugin reads both to end of file before it lets go.
	time.AfterFunc(refusalGrace, func() {
		_ = r.stdout.Close()
		_ = r.stderr.Close()
	})
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// started says the handshake is done: from now on a kill is at once.
func (r *procRunner) started() { r.starting.Store(false) }

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }
func (r *procRunner) ID() string            { return strconv.Itoa(r.pid) }

// Diagnose follows a failed handshake in go-plugin's error; refusal
// replaces the error's text from here on.
func (r *procRunner) Diagnose(context.Context) string {
	return "This usually means the plugin failed its handshake"
}

func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

var _ runner.Runner = (*procRunner)(nil)

// eofReader closes eof once its reader fails, at end of file or after.
type eofReader struct {
	r    io.ReadCloser
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

func (e *eofReader) Close() error { return e.r.Close() }
