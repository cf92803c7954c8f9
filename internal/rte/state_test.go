package rte_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/ess"
)

// connListener keeps the connections it accepts, for the test to close
// them as the server's keepalive closes those of ranks that stopped
// answering.
type connListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *connListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *connListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// A rank whose connection the server closed (a rank stopped in a
// debugger past the keepalive's timeout) watches for state requests again
// on a new connection, so that a state report still hears from it.
func TestServeStateWatchesAgainAfterTheConnectionCloses(t *testing.T) {
	var l *connListener
	srv := serveOn(t, 1, func(ul net.Listener) net.Listener {
		l = &connListener{Listener: ul}
		return l
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connectAs(t, ctx, 0)
	c.ServeState(ctx, func(bool) ess.State { return ess.State{UnexpectedTotal: 7} })

	// The report comes once the rank watches; the asks are bounded in
	// number, not in time.
	answered := func() bool {
		for range 400 {
			if reps := srv.CollectState(ctx, false, time.Second); reps[0] != nil {
				return reps[0].UnexpectedTotal == 7
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}
	if !answered() {
		t.Fatal("the rank never answered a state request")
	}
	l.closeAll()
	if !answered() {
		t.Fatal("the rank never answered a state request after the server closed its connection")
	}
}
