package pmpi_test

import (
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// A persistent receive and send started and completed again and again:
// BenchmarkIsendWait's work without making the requests each time.
func BenchmarkStartWait(b *testing.B) {
	api, w := benchWorld(b)
	out, in := make([]byte, 8), make([]byte, 8)
	s, _ := api.SendInit(out, 8, pmpi.Byte, 0, 1, w)
	r, _ := api.RecvInit(in, 8, pmpi.Byte, 0, 1, w)
	b.ReportAllocs()
	for b.Loop() {
		if err := api.Start(r); err != nil {
			b.Fatal(err)
		}
		if err := api.Start(s); err != nil {
			b.Fatal(err)
		}
		if _, err := api.Wait(s); err != nil {
			b.Fatal(err)
		}
		if _, err := api.Wait(r); err != nil {
			b.Fatal(err)
		}
	}
}
