package tcp

import (
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// TestContract runs the btl conformance suite on three ranks over loopback.
func TestContract(t *testing.T) {
	btltest.Run(t, btltest.Suite{
		Size: 3,
		New: btltest.PerRank(func(t testing.TB, env btl.InitEnv) btl.Component {
			c, err := openComponent(t, loopbackOnly...)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}),
		Kill: func(_ int, m btl.Module) { m.(*Module).shutdown(false) }, // sockets close with no goodbye
	})
}
