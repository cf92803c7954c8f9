// Package self is the btl component that carries a rank's messages to
// itself: a send hands the sender's bytes straight to the receiving side of
// the engine, which copies them once into the receive buffer.
package self

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// Component is the self btl component.
type Component struct {
	btl.BaseComponent
	eagerLimit  params.Param[int64]
	maxSendSize params.Param[int64]
	env         *mca.Env
}

// info is the component's identity; tests build it with info.Instantiate.
var info = btl.Info("self", mca.Version{Major: 1}, 40, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// RegisterParams registers the transport's sizes.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.eagerLimit = r.Size(params.Spec{
		Name: "eager_limit", Default: "64k", Level: 4,
		Help: "Largest message sent to oneself at once; a larger one waits for its receive and is then copied once",
	})
	c.maxSendSize = r.Size(params.Spec{
		Name: "max_send_size", Default: "16m", Level: 5,
		Help:  "Largest piece a large message to oneself is copied in",
		Range: params.SizeIn(1, math.MaxInt64),
	})
	return nil
}

// Open keeps the environment for Init.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.env = env
	return nil
}

// Init returns the one module that reaches this rank.
func (c *Component) Init(_ context.Context, env btl.InitEnv) ([]btl.Module, error) {
	return []btl.Module{&module{
		rank:        env.Rank,
		recv:        env.Receiver,
		eagerLimit:  int(c.eagerLimit.Get(c.env.Params)),
		maxSendSize: int(c.maxSendSize.Get(c.env.Params)),
	}}, nil
}

type module struct {
	rank        int
	recv        btl.Receiver
	eagerLimit  int
	maxSendSize int
	added       atomic.Bool // AddProcs included this rank and DelProcs has not removed it
	finalized   atomic.Bool
}

func (m *module) Name() string     { return "self" }
func (m *module) Exclusivity() int { return btl.ExclusivityHigh }
func (m *module) Bandwidth() int   { return 100000 }
func (m *module) EagerLimit() int  { return m.eagerLimit }
func (m *module) MaxSendSize() int { return m.maxSendSize }
func (m *module) Progress() int    { return 0 }

// DeliversInline says that Send delivers before it returns (btl.Inline).
func (m *module) DeliversInline() {}

// Finalize makes later sends fail.
func (m *module) Finalize() error {
	m.finalized.Store(true)
	return nil
}

// AddProcs reaches only this rank.
func (m *module) AddProcs(_ context.Context, procs []btl.Proc) ([]bool, error) {
	reach := make([]bool, len(procs))
	for i, p := range procs {
		reach[i] = p.Rank == m.rank
		if reach[i] {
			m.added.Store(true)
		}
	}
	return reach, nil
}

// DelProcs removes this rank if it is among procs: sends to it fail until
// AddProcs adds it again.
func (m *module) DelProcs(_ context.Context, procs []btl.Proc) error {
	for _, p := range procs {
		if p.Rank == m.rank {
			m.added.Store(false)
		}
	}
	return nil
}

// Send delivers the fragment at once, without copying: the engine copies it
// into the receive buffer or, if no receive is posted, keeps a copy.
func (m *module) Send(_ context.Context, peer int, hdr, payload []byte) error {
	if peer != m.rank {
		return fmt.Errorf("world rank %d cannot send to world rank %d", m.rank, peer)
	}
	if m.finalized.Load() {
		return fmt.Errorf("send to world rank %d: the module is finalized", peer)
	}
	if !m.added.Load() {
		return fmt.Errorf("send to world rank %d: %w: not added", peer, btl.ErrUnreachable)
	}
	if err := btl.CheckHeader(hdr); err != nil {
		return fmt.Errorf("send to world rank %d: %w", peer, err)
	}
	m.recv.Deliver(m.rank, hdr, payload, false)
	return nil
}

var (
	_ btl.Component = (*Component)(nil)
	_ btl.Module    = (*module)(nil)
)
