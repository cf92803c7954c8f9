package tcp

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// refusalInterval is how often, at most, refused connections are logged:
// a flood of strangers makes one line per interval, not one per connection.
const refusalInterval = 10 * time.Second

// maxRefusalAddrs is how many remote addresses a refusal line names.
const maxRefusalAddrs = 4

// refusalReason is why a connection was dropped before it was authenticated.
type refusalReason int

// The reasons, in the order a refusal line lists them.
const (
	refusedForeign refusalReason = iota // its first bytes are not this protocol
	refusedAuth                         // it speaks the protocol but failed authentication
	refusedTimeout                      // it did not finish its handshake in time
	refusedLimit                        // evicted: every handshake slot was taken
	refusedHangUp                       // it closed or reset the connection mid-handshake
	refusedAccept                       // accept itself failed, e.g. out of file descriptors
	numRefusalReasons
)

var refusalKeys = [numRefusalReasons]string{"not_gompi", "auth_failed", "timeout", "limit_reached", "hung_up", "accept_failed"}

// classifyRefusal names the reason for a handshake that failed with err.
func classifyRefusal(err error) refusalReason {
	switch {
	case errors.Is(err, errForeign):
		return refusedForeign
	case errors.Is(err, errHandshake):
		return refusedAuth
	case errors.Is(err, os.ErrDeadlineExceeded):
		return refusedTimeout
	case hungUp(err):
		return refusedHangUp
	}
	return refusedAuth // any other error of a stranger's making
}

// clock is time as the refusal log sees it; tests drive a fake one.
type clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// refusals counts refused connections and logs them, one line at the
// first refusal after a quiet interval, then one line per interval with
// the counts by reason and a few remote addresses.
type refusals struct {
	log   hclog.Logger
	clock clock

	mu       sync.Mutex
	counts   [numRefusalReasons]int
	total    uint64 // every refusal ever noted, for tests and the flood tool
	addrs    []string
	lastErr  error     // the last accept error of the interval
	last     time.Time // when the last line was written
	stop     func() bool
	closed   bool
	sinceAny bool // a line was ever written: last is valid
}

func newRefusals(log hclog.Logger, c clock) *refusals {
	return &refusals{log: log, clock: c}
}

// note records a refused connection from remote (nil for accept errors).
func (r *refusals) note(why refusalReason, remote net.Addr, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if r.closed {
		return // the rank is finalizing: a stranger's hang-up then is no news
	}
	r.counts[why]++
	if why == refusedAccept {
		r.lastErr = err
	}
	if remote != nil && len(r.addrs) < maxRefusalAddrs {
		r.addrs = append(r.addrs, remote.String())
	}
	if r.stop != nil {
		return // a line is already due
	}
	now := r.clock.Now()
	if wait := refusalInterval - now.Sub(r.last); r.sinceAny && wait > 0 {
		r.stop = r.clock.AfterFunc(wait, r.flush)
		return
	}
	r.writeLocked(now)
}

// flush writes the line that is due.
func (r *refusals) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop = nil
	if !r.closed {
		r.writeLocked(r.clock.Now())
	}
}

// close writes what is pending and stops logging.
func (r *refusals) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	r.writeLocked(r.clock.Now())
	r.closed = true
}

func (r *refusals) writeLocked(now time.Time) {
	n := 0
	args := make([]any, 0, 2*numRefusalReasons+6)
	for i, c := range r.counts {
		if c > 0 {
			n += c
			args = append(args, refusalKeys[i], c)
		}
	}
	if n == 0 {
		return
	}
	if len(r.addrs) > 0 {
		args = append(args, "from", strings.Join(r.addrs, " "))
	}
	if r.lastErr != nil {
		args = append(args, "accept_error", r.lastErr)
	}
	if r.sinceAny {
		args = append(args, "since", now.Sub(r.last).Round(time.Second))
	}
	r.log.Warn("refused connections that did not authenticate", append([]any{"count", n}, args...)...)
	r.counts = [numRefusalReasons]int{}
	r.addrs = r.addrs[:0]
	r.lastErr = nil
	r.last, r.sinceAny = now, true
}

// noted returns how many refusals were ever noted.
func (r *refusals) noted() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}
