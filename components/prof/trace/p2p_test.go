package trace

import (
	"testing"

	"github.com/gompi/gompi/pmpi"
)

// nullPeers is a layer below the tracer whose point-to-point calls return
// at once, as calls on ProcNull do.
type nullPeers struct{ fake }

func (nullPeers) Send([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) error  { return nil }
func (nullPeers) Ssend([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) error { return nil }
func (nullPeers) Issend([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error) {
	return fakeRequest, nil
}
func (nullPeers) Irecv([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (*pmpi.Request, error) {
	return fakeRequest, nil
}
func (nullPeers) Recv([]byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (pmpi.Status, error) {
	return pmpi.Status{Source: pmpi.ProcNull, Tag: pmpi.AnyTag}, nil
}
func (nullPeers) Sendrecv([]byte, int, pmpi.Datatype, int, int, []byte, int, pmpi.Datatype, int, int, *pmpi.Comm) (pmpi.Status, error) {
	return pmpi.Status{Source: pmpi.ProcNull, Tag: pmpi.AnyTag}, nil
}

// TestProcNullMovesNothing: a call whose peer is ProcNull is recorded
// with that peer and 0 bytes, as stats counts it, while the same send to
// a rank records its bytes.
func TestProcNullMovesNothing(t *testing.T) {
	world := new(pmpi.Comm)
	must(t, pmpi.Real().CommSetName(world, "world"))
	tr := newTracer(nullPeers{}, config{maxEvents: 100})
	tr.m.name(world, "world")
	buf := make([]byte, 80)
	const null = pmpi.ProcNull
	must(t, tr.Send(buf, 10, pmpi.Int64, 1, 5, world)) // the one call that moves bytes
	must(t, tr.Send(buf, 10, pmpi.Int64, null, 5, world))
	must(t, tr.Ssend(buf, 10, pmpi.Int64, null, 5, world))
	_, err := tr.Isend(buf, 10, pmpi.Int64, null, 5, world)
	must(t, err)
	_, err = tr.Issend(buf, 10, pmpi.Int64, null, 5, world)
	must(t, err)
	_, err = tr.Irecv(buf, 10, pmpi.Int64, null, 5, world)
	must(t, err)
	_, err = tr.Recv(buf, 10, pmpi.Int64, null, 5, world)
	must(t, err)
	_, err = tr.Sendrecv(buf, 10, pmpi.Int64, null, 5, buf, 10, pmpi.Int64, null, 5, world)
	must(t, err)

	rt := tr.snapshot()
	if len(rt.Events) != 8 {
		t.Fatalf("%d events, want 8", len(rt.Events))
	}
	if a := rt.Events[0].Args; a.Peer != 1 || a.Bytes != 80 {
		t.Errorf("MPI_Send to rank 1: peer %d, %d bytes; want 1, 80", a.Peer, a.Bytes)
	}
	for _, e := range rt.Events[1:] {
		a := e.Args
		if a.Set&uint8(hasPeer) == 0 || a.Peer != null || a.Set&uint8(hasBytes) == 0 || a.Bytes != 0 {
			t.Errorf("%s on ProcNull: peer %d, %d bytes (set %b); want peer %d, 0 bytes", e.Name, a.Peer, a.Bytes, a.Set, null)
		}
		if e.Name == "MPI_Sendrecv" && (a.Dest != null || a.SendBytes != 0) {
			t.Errorf("MPI_Sendrecv to ProcNull: dest %d, %d bytes sent; want dest %d, 0 bytes", a.Dest, a.SendBytes, null)
		}
	}
}
