package trace

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"

	"github.com/gompi/gompi/pmpi"
)

// matcher pairs sends with receives without talking to other ranks. MPI
// does not let messages overtake each other: the n-th message from rank a
// to rank b on a communicator with a tag is the n-th that b receives from a
// on it with that tag. Each side counts its own messages per (communicator,
// source, destination, tag), and both derive the arrow's id from the same
// five values. It is not safe for concurrent use: the tracer locks it.
type matcher struct {
	comms   map[*pmpi.Comm]string // the trace's id of each communicator
	derived map[string]int        // communicators made from each so far
	sent    map[pair]uint64
	recvd   map[pair]uint64
}

// pair is one ordered stream of messages.
type pair struct {
	comm     string
	src, dst int
	tag      int
}

func newMatcher() matcher {
	return matcher{comms: map[*pmpi.Comm]string{}, derived: map[string]int{}, sent: map[pair]uint64{}, recvd: map[pair]uint64{}}
}

// name gives comm the id key; world and self are named at Init.
func (m *matcher) name(comm *pmpi.Comm, key string) {
	if comm != nil {
		m.comms[comm] = key
	}
}

// commID returns the trace's id of comm. Contexts are not visible above
// pmpi, so a communicator is named after the calls that made it: the k-th
// communicator made from parent p is "p.k". Every member makes the calls
// that create communicators from p in the same order, so every member
// reaches the same id.
func (m *matcher) commID(comm *pmpi.Comm) string {
	if id, ok := m.comms[comm]; ok {
		return id
	}
	return "?" + comm.Name()
}

// derive returns the id of the next communicator made from parent; every
// member of parent calls it, whether or not it is in the new one.
func (m *matcher) derive(parent *pmpi.Comm) string {
	p := m.commID(parent)
	k := m.derived[p]
	m.derived[p]++
	return p + "." + strconv.Itoa(k)
}

// forget drops a freed communicator.
func (m *matcher) forget(comm *pmpi.Comm) { delete(m.comms, comm) }

// send counts a message from src to dst on the communicator with the
// given id and returns its arrow's id.
func (m *matcher) send(comm string, src, dst, tag int) uint64 {
	p := pair{comm: comm, src: src, dst: dst, tag: tag}
	seq := m.sent[p]
	m.sent[p]++
	return flowID(p, seq)
}

// recv counts a message received at dst, from the src and with the tag of
// its status (which tells where an AnySource or AnyTag receive matched),
// and returns its arrow's id.
func (m *matcher) recv(comm string, src, dst, tag int) uint64 {
	p := pair{comm: comm, src: src, dst: dst, tag: tag}
	seq := m.recvd[p]
	m.recvd[p]++
	return flowID(p, seq)
}

// sendOn counts a message this rank sends to dest on comm; 0 for ProcNull.
func (m *matcher) sendOn(comm *pmpi.Comm, dest, tag int) uint64 {
	if comm == nil || dest < 0 {
		return 0
	}
	return m.send(m.commID(comm), comm.Rank(), dest, tag)
}

// recvOn counts a message this rank received on comm, as st describes it;
// 0 for ProcNull or a cancelled receive.
func (m *matcher) recvOn(comm *pmpi.Comm, st pmpi.Status) uint64 {
	if comm == nil || st.Source < 0 || st.Cancelled {
		return 0
	}
	return m.recv(m.commID(comm), st.Source, comm.Rank(), st.Tag)
}

// flowID hashes a message's identity to a positive number that JSON
// readers hold exactly (below 2^53).
func flowID(p pair, seq uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(p.comm))
	var b [8 * 4]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(p.src))
	binary.LittleEndian.PutUint64(b[8:], uint64(p.dst))
	binary.LittleEndian.PutUint64(b[16:], uint64(p.tag))
	binary.LittleEndian.PutUint64(b[24:], seq)
	h.Write(b[:])
	return h.Sum64()&(1<<53-1) | 1
}
