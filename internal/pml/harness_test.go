package pml

import (
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// net connects n engines in one process over btltest's Loopback: each
// ordered pair of ranks has a link with its own delivering goroutine, as a
// tcp connection has, so delivery is ordered per pair and concurrent
// across pairs.
type net struct {
	engines []*Engine
	lb      *btltest.Loopback
}

// transports hands the engine one module for every peer.
type transports struct{ btl.Module }

func (t transports) For(int) btl.Module { return t.Module }

// newNet starts n engines; they stop when the test ends.
func newNet(t testing.TB, n, eager, maxSend int) *net {
	return newNetWith(t, n, eager, maxSend, func(m btl.Module) btl.Module { return m })
}

// newNetWith is newNet with each rank's module wrapped by wrap.
func newNetWith(t testing.TB, n, eager, maxSend int, wrap func(btl.Module) btl.Module) *net {
	return newNetReceiving(t, n, eager, maxSend, wrap, func(e *Engine) btl.Receiver { return e })
}

// newNetReceiving is newNetWith with the modules delivering to what
// receiver makes of each engine.
func newNetReceiving(t testing.TB, n, eager, maxSend int, wrap func(btl.Module) btl.Module, receiver func(*Engine) btl.Receiver) *net {
	nt := &net{}
	recvs := make([]btl.Receiver, n)
	for i := range n {
		nt.engines = append(nt.engines, New(i, hclog.NewNullLogger(), DefaultConfig()))
		recvs[i] = receiver(nt.engines[i])
	}
	nt.lb = btltest.NewLoopback(eager, maxSend, recvs)
	for i, e := range nt.engines {
		m := nt.lb.Module(i)
		if _, err := m.AddProcs(t.Context(), btltest.Procs(n)); err != nil {
			t.Fatal(err)
		}
		e.Start(transports{wrap(m)})
	}
	t.Cleanup(func() {
		nt.lb.Close()
		for _, e := range nt.engines {
			e.Drain()
		}
	})
	return nt
}

// kill makes rank r vanish: its links close and its peers are told.
func (nt *net) kill(r int) { nt.lb.Kill(r) }
