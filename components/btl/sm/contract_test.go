package sm

import (
	"context"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// TestContract runs the btl conformance suite on three ranks of one host.
func TestContract(t *testing.T) {
	btltest.Run(t, btltest.Suite{
		Size: 3,
		New: func(t *testing.T, envs []btl.InitEnv) []btl.Module {
			mods := make([]btl.Module, len(envs))
			for rank, env := range envs {
				c, err := openComponent(t, "btl_sm_backing_directory", env.SessionDir)
				if err != nil {
					t.Fatal(err)
				}
				ms, err := c.Init(context.Background(), env)
				if err != nil || len(ms) != 1 {
					t.Fatalf("rank %d: Init = %d modules, %v; want 1", rank, len(ms), err)
				}
				mods[rank] = ms[0]
			}
			return mods
		},
		Reaches: func(from, to int) bool { return from != to },
	})
}
