package sm

import (
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// TestContract runs the btl conformance suite on three ranks of one host.
func TestContract(t *testing.T) {
	btltest.Run(t, btltest.Suite{
		Size: 3,
		New: btltest.PerRank(func(t testing.TB, env btl.InitEnv) btl.Component {
			c, err := openComponent(t, "btl_sm_backing_directory", env.SessionDir)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}),
		Reaches: func(from, to int) bool { return from != to },
	})
}
