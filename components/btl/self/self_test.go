package self

import (
	"context"
	"errors"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

func newModule(env btl.InitEnv) *module {
	return &module{rank: env.Rank, recv: env.Receiver, eagerLimit: 4096, maxSendSize: 1 << 20}
}

func TestContract(t *testing.T) {
	btltest.Run(t, btltest.Suite{
		Size: 1,
		New: func(t *testing.T, envs []btl.InitEnv) []btl.Module {
			return []btl.Module{newModule(envs[0])}
		},
	})
}

func TestReachesOnlyItselfWhileAdded(t *testing.T) {
	envs, recvs := btltest.Envs(t, 2)
	m := newModule(envs[1])
	ctx := context.Background()
	procs := btltest.Procs(2)
	if err := m.Send(ctx, 1, []byte{1}, nil); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("send before AddProcs: %v", err)
	}
	reach, err := m.AddProcs(ctx, procs)
	if err != nil || reach[0] || !reach[1] {
		t.Fatalf("AddProcs = %v, %v; want only rank 1", reach, err)
	}
	if err := m.Send(ctx, 1, []byte{1}, []byte("x")); err != nil || recvs[1].Count() != 1 {
		t.Fatalf("send to itself: %v, %d delivered", err, recvs[1].Count())
	}
	if err := m.Send(ctx, 0, []byte{1}, nil); err == nil {
		t.Fatal("sent to another rank")
	}
	if err := m.DelProcs(ctx, procs); err != nil {
		t.Fatal(err)
	}
	if err := m.Send(ctx, 1, []byte{1}, nil); !errors.Is(err, btl.ErrUnreachable) {
		t.Fatalf("send after DelProcs: %v", err)
	}
}
