package tcp

import (
	"context"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// raiseFileLimit raises the soft limit on open files to at least n, or
// skips the test if the hard limit is lower.
func raiseFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Skipf("the hard limit on open files is %d; this test needs %d", lim.Max, n)
	}
	old := lim
	lim.Cur = n
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}

// TestFloodStaysBounded holds thousands of strangers' connections open to
// a rank, silent or sending junk, and checks that the handshakes in
// progress never exceed the limit, that a real peer still connects, and
// that the refusals make a constant number of log lines.
func TestFloodStaysBounded(t *testing.T) {
	const (
		silent = 1500
		junk   = 500
		limit  = 64
	)
	raiseFileLimit(t, 2*(silent+junk)+1000)
	// A handshake timeout far longer than the test: no stranger is dropped
	// for its silence, only for the limit.
	j := newJob(t, 2, "btl_tcp_if_include", "127.0.0.0/8", "btl_tcp_handshake_timeout", "600",
		"btl_tcp_max_pending_handshakes", "64")
	target := j.mods[1]
	var out logBuffer
	clk := newFakeClock() // never advanced until the end: no interval ends meanwhile
	target.refused.redirect(out.logger(), clk)

	addr := target.listeners[0].Addr().String()
	for i := range silent + junk {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("stranger %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		if i%4 == 3 { // junk: a quarter of them
			c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		}
	}
	// Every stranger is either refused or holds a slot.
	waitFor(t, "the flood to be taken in", func() bool {
		used, _ := target.slots.stats()
		return target.refused.noted()+uint64(used) == silent+junk
	})
	used, peak := target.slots.stats()
	if used > limit || peak > limit {
		t.Fatalf("%d handshakes in progress, %d at most; the limit is %d", used, peak, limit)
	}

	// The real peers still talk, both ways, while the flood is held open.
	ctx := context.Background()
	for from := range 2 {
		if err := j.mods[from].Send(ctx, 1-from, hdrFor(from, 0, 0, 10), pattern(10, from, 0, 0)); err != nil {
			t.Fatalf("rank %d to rank %d under a flood: %v", from, 1-from, err)
		}
	}
	for _, r := range j.recvs {
		waitFor(t, "a frame", func() bool { return r.Count() == 1 })
		checkFrame(t, r.Frames()[0])
		if len(r.FailedPeers()) != 0 {
			t.Fatal("a stranger made a rank fail")
		}
	}
	if _, peak := target.slots.stats(); peak > limit {
		t.Fatalf("%d handshakes were in progress at once; the limit is %d", peak, limit)
	}

	// One line for the first refusal; the rest wait for the interval's end.
	if n := len(out.lines(refusalLine)); n != 1 {
		t.Fatalf("%d refusal lines during the flood, want 1:\n%s", n, out.lines(refusalLine))
	}
	clk.Advance(refusalInterval)
	lines := out.lines(refusalLine)
	total := 0
	for _, n := range refusalCounts(t, lines) {
		total += n
	}
	if len(lines) != 2 || uint64(total) != target.refused.noted() {
		t.Fatalf("%d refusal lines counting %d refusals; want 2 lines counting %d:\n%s",
			len(lines), total, target.refused.noted(), lines)
	}
	if out.lines("[WARN]")[0] != lines[0] || len(out.lines("[WARN]")) != 2 {
		t.Fatalf("other warnings were logged:\n%s", out.lines("[WARN]"))
	}
	t.Logf("refusals: %s", lines[1])
}

// TestEvictedPeerDialsAgain puts a listener between two ranks that hangs
// up on the first dials before any challenge, as a rank evicting silent
// connections may: the dialer dials again and gets through.
func TestEvictedPeerDialsAgain(t *testing.T) {
	const hangUps = 3
	j := newJob(t, 2)
	real := j.mods[1].listeners[0].Addr().String()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The relays end before the test does, and report through errs: their
	// connections are closed, and then waited for, when it ends.
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
		errs   []error
	)
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		for _, err := range errs {
			t.Error(err)
		}
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if i < hangUps {
				c.Close()
				continue
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				c.Close()
				return
			}
			conns = append(conns, c)
			wg.Add(1)
			mu.Unlock()
			go func() {
				defer wg.Done()
				if err := relay(c, real); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
	}()
	p := &j.mods[0].peers[1]
	p.mu.Lock()
	p.addrs = []netip.AddrPort{netip.MustParseAddrPort(l.Addr().String())}
	p.mu.Unlock()
	if err := j.mods[0].Send(context.Background(), 1, hdrFor(0, 0, 0, 10), pattern(10, 0, 0, 0)); err != nil {
		t.Fatalf("a dial cut %d times did not get through: %v", hangUps, err)
	}
	waitFor(t, "a frame", func() bool { return j.recvs[1].Count() == 1 })
	checkFrame(t, j.recvs[1].Frames()[0])
}

// relay joins c to a new connection to addr, both ways, until either
// side ends; it closes c.
func relay(c net.Conn, addr string) error {
	defer c.Close()
	d, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer d.Close()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(d, c)
	go cp(c, d)
	<-done
	return nil
}
