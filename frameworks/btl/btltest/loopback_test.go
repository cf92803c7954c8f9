package btltest_test

import (
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// The suite accepts the Loopback transport, the model of a conforming module.
func TestLoopbackKeepsTheContract(t *testing.T) {
	var lb *btltest.Loopback
	btltest.Run(t, btltest.Suite{
		Size: 3,
		New: func(t *testing.T, envs []btl.InitEnv) []btl.Module {
			recvs := make([]btl.Receiver, len(envs))
			for i, env := range envs {
				recvs[i] = env.Receiver
			}
			lb = btltest.NewLoopback(1<<10, 64<<10, recvs)
			t.Cleanup(lb.Close)
			mods := make([]btl.Module, len(envs))
			for i := range mods {
				mods[i] = lb.Module(i)
			}
			return mods
		},
		Kill: func(rank int, _ btl.Module) { lb.Kill(rank) },
	})
}
