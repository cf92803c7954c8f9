package prof_test

import (
	"fmt"
	"os"
	"testing"

	_ "github.com/gompi/gompi/components/all"
	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// The benchmarks run pmpi as a singleton in this process.
func TestMain(m *testing.M) {
	if err := pmpi.Real().Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := pmpi.Real().Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// empty is a tool that overrides nothing: every call passes through Base.
type empty struct{ prof.Base }

// BenchmarkStack is the cost of 0, 1 and 4 empty layers on two calls a
// program makes often, on the self communicator (no transport wait).
func BenchmarkStack(b *testing.B) {
	dt := pmpi.TypeOf[int64]()
	for _, n := range []int{0, 1, 4} {
		api := pmpi.Real()
		for range n {
			api = empty{prof.Base{Next: api}}
		}
		self := api.CommSelf()
		send, recv := make([]byte, 8), make([]byte, 8)
		b.Run(fmt.Sprintf("layers=%d/isend-wait", n), func(b *testing.B) {
			for b.Loop() {
				r, err := api.Irecv(recv, 1, dt, 0, 0, self)
				if err != nil {
					b.Fatal(err)
				}
				s, err := api.Isend(send, 1, dt, 0, 0, self)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := api.Wait(s); err != nil {
					b.Fatal(err)
				}
				if _, err := api.Wait(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("layers=%d/allreduce-8B", n), func(b *testing.B) {
			for b.Loop() {
				if err := api.Allreduce(send, recv, 1, dt, pmpi.OpSum, self); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
