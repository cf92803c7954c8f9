package pmpi

import "github.com/gompi/gompi/frameworks/coll"

// The neighbourhood collectives exchange along a communicator's topology:
// each rank receives from its sources and sends to its destinations, in
// the topology's order. A Cartesian grid's neighbours are, for each
// dimension, the ranks below and above (ProcNull past a non-periodic
// edge: their blocks are left alone); a graph's are a rank's edges, both
// ways; a distributed graph's its in- and out-edges. MPI_IN_PLACE has no
// meaning here and is refused.

// neighbors is the rank's neighbourhood in t, worked out once.
func (t *topology) neighbors(rank int) coll.Neighbors {
	t.nbOnce.Do(func() {
		switch {
		case t.cart != nil:
			g := t.cart
			list := make([]int, 0, 2*len(g.dims))
			here := g.coords(rank)
			for d := range g.dims {
				for _, x := range []int{here[d] - 1, here[d] + 1} {
					c := append([]int(nil), here...)
					var ok bool
					if c[d], ok = g.wrap(d, x); ok {
						list = append(list, g.rank(c))
					} else {
						list = append(list, ProcNull)
					}
				}
			}
			t.nb = coll.Neighbors{Sources: list, Dests: list, Cart: true}
		case t.graph != nil:
			list := t.graph.neighbors(rank)
			t.nb = coll.Neighbors{Sources: list, Dests: list}
		case t.dist != nil:
			t.nb = coll.Neighbors{Sources: t.dist.sources, Dests: t.dist.dests}
		}
	})
	return t.nb
}

// Degrees returns the number of sources and destinations the
// neighbourhood collectives exchange with on c, 0 and 0 for a
// communicator without a topology. It is no MPI call: tools do not see
// it.
func (c *Comm) Degrees() (sources, dests int) {
	if c == nil || c.topo == nil {
		return 0, 0
	}
	nb := c.topo.neighbors(c.rank)
	return len(nb.Sources), len(nb.Dests)
}

// Neighbors returns the ranks the neighbourhood collectives receive from
// and send to on c, in order, ProcNull for a neighbour past a grid's
// edge; nil for a communicator without a topology. The slices are the
// communicator's own: read them, never write. It is no MPI call: a tool
// reads it to count a neighbourhood collective's traffic.
func (c *Comm) Neighbors() (sources, dests []int) {
	if c == nil || c.topo == nil {
		return nil, nil
	}
	nb := c.topo.neighbors(c.rank)
	return nb.Sources, nb.Dests
}

// neighborhood is the call's neighbourhood, or an error if its
// communicator has no topology.
func (k *collCall) neighborhood() (coll.Neighbors, error) {
	if k.comm.topo == nil {
		return coll.Neighbors{}, k.fail(ClassTopology, "the communicator has no topology (want one made by CartCreate, GraphCreate or DistGraphCreate)")
	}
	return k.comm.topo.neighbors(k.comm.rank), nil
}

// notInPlace refuses MPI_IN_PLACE in bufs, which the neighbourhood
// collectives and the collectives on an intercommunicator do not take.
func (k *collCall) notInPlace(bufs ...[]byte) error {
	for _, b := range bufs {
		if !IsInPlace(b) {
			continue
		}
		if k.comm.inter != nil {
			return k.fail(ClassBuffer, "InPlace is not allowed on an intercommunicator (MPI defines no in-place form there)")
		}
		return k.fail(ClassBuffer, "InPlace is not allowed in a neighbourhood collective (want separate send and receive buffers)")
	}
	return nil
}

// NeighborAllgather sends scount elements of sdt from send to every
// destination of comm's topology and receives rcount elements of rdt from
// each source j into block j of recv.
func (*realAPI) NeighborAllgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return neighborAllgatherCall(nil, send, scount, sdt, recv, rcount, rdt, comm)
}

func neighborAllgatherCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	k, err := startColl(s, &nameNeighborAllgather, comm)
	if err != nil {
		return err
	}
	nb, err := k.neighborhood()
	if err != nil {
		return err
	}
	if err := k.notInPlace(send); err != nil {
		return err
	}
	rd, err := k.data("receive", recv, rcount*len(nb.Sources), rdt)
	if err != nil {
		return err
	}
	sd, err := k.data("send", send, scount, sdt)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.match(len(sd), rcount*rdt.Size()), k.separate(sd, rd)); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collNeighborAllgather, send: sd, recv: rd, nb: nb})
}

// NeighborAllgatherv is NeighborAllgather receiving counts[j] elements at
// displs[j] of recv from source j.
func (*realAPI) NeighborAllgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	return neighborAllgathervCall(nil, send, scount, sdt, recv, counts, displs, rdt, comm)
}

func neighborAllgathervCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error {
	k, err := startColl(s, &nameNeighborAllgatherv, comm)
	if err != nil {
		return err
	}
	nb, err := k.neighborhood()
	if err != nil {
		return err
	}
	if err := k.notInPlace(send); err != nil {
		return err
	}
	bc, bd, err := k.blocksIn("receive", len(nb.Sources), "source", &recv, counts, displs, rdt)
	if err != nil {
		return err
	}
	sd, err := k.data("send", send, scount, sdt)
	if err != nil {
		return err
	}
	if vBlocksMeet(sd, nil, nil, recv, bc, bd) {
		return k.separate(sd, recv)
	}
	return k.run(s, &collOp{kind: collNeighborAllgatherv, send: sd, recv: recv, counts: bc, displs: bd, nb: nb})
}

// NeighborAlltoall sends block i of send (scount elements of sdt) to
// destination i of comm's topology and receives block j of recv (rcount
// elements of rdt) from source j.
func (*realAPI) NeighborAlltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	return neighborAlltoallCall(nil, send, scount, sdt, recv, rcount, rdt, comm)
}

func neighborAlltoallCall(s *collStart, send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error {
	k, err := startColl(s, &nameNeighborAlltoall, comm)
	if err != nil {
		return err
	}
	nb, err := k.neighborhood()
	if err != nil {
		return err
	}
	if err := k.notInPlace(send); err != nil {
		return err
	}
	rd, err := k.data("receive", recv, rcount*len(nb.Sources), rdt)
	if err != nil {
		return err
	}
	sd, err := k.data("send", send, scount*len(nb.Dests), sdt)
	if err != nil {
		return err
	}
	if err := errorsFirst(k.match(scount*sdt.Size(), rcount*rdt.Size()), k.separate(sd, rd)); err != nil {
		return err
	}
	return k.run(s, &collOp{kind: collNeighborAlltoall, send: sd, recv: rd, nb: nb})
}

// NeighborAlltoallv is NeighborAlltoall with per-neighbour counts and
// displacements: scounts[i] elements at sdispls[i] of send go to
// destination i, rcounts[j] at rdispls[j] of recv come from source j.
func (*realAPI) NeighborAlltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	return neighborAlltoallvCall(nil, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
}

func neighborAlltoallvCall(s *collStart, send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error {
	k, err := startColl(s, &nameNeighborAlltoallv, comm)
	if err != nil {
		return err
	}
	nb, err := k.neighborhood()
	if err != nil {
		return err
	}
	if err := k.notInPlace(send); err != nil {
		return err
	}
	rc, rdp, err := k.blocksIn("receive", len(nb.Sources), "source", &recv, rcounts, rdispls, rdt)
	if err != nil {
		return err
	}
	sc, sdp, err := k.blocksIn("send", len(nb.Dests), "destination", &send, scounts, sdispls, sdt)
	if err != nil {
		return err
	}
	if vBlocksMeet(send, sc, sdp, recv, rc, rdp) {
		return k.separate(send, recv)
	}
	return k.run(s, &collOp{kind: collNeighborAlltoallv, send: send, scounts: sc, sdispls: sdp, recv: recv, counts: rc, displs: rdp, nb: nb})
}

// IneighborAllgather and the rest start the calls above and return their
// requests; the Init forms make persistent requests of them (nbc.go).

// IneighborAllgather starts NeighborAllgather and returns its request.
func (*realAPI) IneighborAllgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return neighborAllgatherCall(s, send, scount, sdt, recv, rcount, rdt, comm)
	})
}

// IneighborAllgatherv starts NeighborAllgatherv and returns its request.
func (*realAPI) IneighborAllgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return neighborAllgathervCall(s, send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

// IneighborAlltoall starts NeighborAlltoall and returns its request.
func (*realAPI) IneighborAlltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return neighborAlltoallCall(s, send, scount, sdt, recv, rcount, rdt, comm)
	})
}

// IneighborAlltoallv starts NeighborAlltoallv and returns its request.
func (*realAPI) IneighborAlltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error) {
	return nonblocking(func(s *collStart) error {
		return neighborAlltoallvCall(s, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}

// NeighborAllgatherInit makes a persistent NeighborAllgather.
func (*realAPI) NeighborAllgatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return neighborAllgatherCall(s, send, scount, sdt, recv, rcount, rdt, comm)
	})
}

// NeighborAllgathervInit makes a persistent NeighborAllgatherv.
func (*realAPI) NeighborAllgathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return neighborAllgathervCall(s, send, scount, sdt, recv, counts, displs, rdt, comm)
	})
}

// NeighborAlltoallInit makes a persistent NeighborAlltoall.
func (*realAPI) NeighborAlltoallInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return neighborAlltoallCall(s, send, scount, sdt, recv, rcount, rdt, comm)
	})
}

// NeighborAlltoallvInit makes a persistent NeighborAlltoallv.
func (*realAPI) NeighborAlltoallvInit(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error) {
	return persistentColl(func(s *collStart) error {
		return neighborAlltoallvCall(s, send, scounts, sdispls, sdt, recv, rcounts, rdispls, rdt, comm)
	})
}
