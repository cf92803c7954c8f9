package sm

import (
	"testing"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/colltest"
)

// Build and Free of one rank's table over sm, tuned's kin basic, as a
// Dup and Free run them: the part of making a communicator that is
// neither its context's agreement nor pmpi's.
func BenchmarkBuildFree(b *testing.B) {
	w := colltest.NewWorld(2)
	c := &testComm{Comm: w.Comm(0), dropTo: -1}
	comp := &Component{cfg: config{maxBytes: 64, maxRanks: 16, dir: b.TempDir(), segmentAfter: 256}}
	cands := []coll.Candidate{{Name: "sm", Component: comp, Priority: 50}, {Name: "basic", Component: basicComponent(b), Priority: 10}}
	host := coll.Host{OneNode: true, ID: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		t, err := coll.Build(c, cands, host)
		if err != nil {
			b.Fatal(err)
		}
		if err := t.Free(); err != nil {
			b.Fatal(err)
		}
	}
}
