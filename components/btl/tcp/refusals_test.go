package tcp

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/internal/testlog"
)

// fakeClock is a clock that moves only when a test advances it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		stopped := !t.done
		t.done = true
		return stopped
	}
}

// Advance moves the clock by d and runs the functions then due, in this goroutine.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// logBuffer collects a logger's lines.
type logBuffer struct{ testlog.Buffer }

// lines returns the lines logged that contain substr.
func (b *logBuffer) lines(substr string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

func (b *logBuffer) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "btl.tcp", Level: hclog.Info, Output: b})
}

const refusalLine = "refused connections that did not authenticate"

var countField = regexp.MustCompile(`\bcount=(\d+)`)

// refusalCounts returns the count field of each refusal line.
func refusalCounts(t *testing.T, lines []string) []int {
	t.Helper()
	var out []int
	for _, l := range lines {
		m := countField.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("refusal line without a count: %s", l)
		}
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// redirect sends r's lines to a buffer and its timers to a fake clock.
func (r *refusals) redirect(log hclog.Logger, c clock) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log, r.clock = log, c
}

func TestRefusalsAreSummarizedPerInterval(t *testing.T) {
	var out logBuffer
	clk := newFakeClock()
	r := newRefusals(out.logger(), clk)
	addr := func(i int) net.Addr { return &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1000 + i} }
	r.note(refusedForeign, addr(0), nil)
	if got := refusalCounts(t, out.lines(refusalLine)); len(got) != 1 || got[0] != 1 {
		t.Fatalf("after the first refusal, lines with counts %v; want one line at once", got)
	}
	for i := 1; i < 1000; i++ {
		r.note(refusalReason(i%int(refusedAccept)), addr(i), nil)
	}
	if n := len(out.lines(refusalLine)); n != 1 {
		t.Fatalf("%d lines before the interval ended; want 1", n)
	}
	clk.Advance(refusalInterval - time.Nanosecond)
	if n := len(out.lines(refusalLine)); n != 1 {
		t.Fatalf("%d lines just before the interval ended; want 1", n)
	}
	clk.Advance(time.Nanosecond)
	lines := out.lines(refusalLine)
	if got := refusalCounts(t, lines); len(got) != 2 || got[1] != 999 {
		t.Fatalf("after the interval, lines with counts %v; want [1 999]", got)
	}
	second := lines[1]
	for _, want := range []string{"not_gompi=199", "auth_failed=200", "timeout=200", "limit_reached=200", "hung_up=200"} {
		if !strings.Contains(second, want) {
			t.Errorf("summary %q lacks %s", second, want)
		}
	}
	if n := strings.Count(second, "10.0.0.1:"); n != maxRefusalAddrs {
		t.Errorf("summary names %d addresses, want %d: %s", n, maxRefusalAddrs, second)
	}
	// A quiet interval: the next refusal is logged at once again, and
	// close writes what is pending.
	clk.Advance(2 * refusalInterval)
	r.note(refusedAccept, nil, syscallError("accept4: too many open files"))
	r.note(refusedTimeout, addr(1), nil)
	r.close()
	r.note(refusedTimeout, addr(2), nil) // after close: counted, not logged
	lines = out.lines(refusalLine)
	if got := refusalCounts(t, lines); len(got) != 4 || got[2] != 1 || got[3] != 1 {
		t.Fatalf("lines with counts %v; want [1 999 1 1]", got)
	}
	if !strings.Contains(lines[2], "too many open files") {
		t.Errorf("the accept error is not named: %s", lines[2])
	}
	if r.noted() != 1003 {
		t.Errorf("noted %d refusals, want 1003", r.noted())
	}
}

type syscallError string

func (e syscallError) Error() string { return string(e) }
