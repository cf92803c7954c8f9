package trace

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
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
	self    int // this process's world rank
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
	return m.deriveKey(m.commID(parent))
}

// deriveInter returns the id of an intercommunicator that inter joins to
// local: both groups must reach it, and neither knows the other's local
// communicator, so it is named after the world ranks of the two groups,
// the one holding the lower rank first, and counted per pair of groups.
func (m *matcher) deriveInter(local, inter *pmpi.Comm) string {
	a := make([]int, local.Size())
	for i := range a {
		a[i] = local.WorldRank(i)
	}
	b := make([]int, inter.Peers())
	for i := range b {
		b[i] = inter.WorldRank(i)
	}
	if slices.Min(b) < slices.Min(a) {
		a, b = b, a
	}
	slices.Sort(a)
	slices.Sort(b)
	return m.deriveKey("inter" + ranksKey(append(append(a, -1), b...)))
}

// deriveGroup returns the id of a communicator made by the members of
// group c alone, with tag (CommCreateGroup): the parent's other ranks
// make no call, so the parent's count of derived communicators cannot
// move; the id is counted per parent, members and tag instead.
func (m *matcher) deriveGroup(parent, c *pmpi.Comm, tag int) string {
	ranks := make([]int, c.Size())
	for i := range ranks {
		ranks[i] = c.WorldRank(i)
	}
	return m.deriveKey(m.commID(parent) + ".g" + strconv.Itoa(tag) + ranksKey(ranks))
}

// deriveKey returns key's next id: key.k for the k-th.
func (m *matcher) deriveKey(key string) string {
	k := m.derived[key]
	m.derived[key]++
	return key + "." + strconv.Itoa(k)
}

// ranksKey is a short name for a list of ranks.
func ranksKey(ranks []int) string {
	h := fnv.New32a()
	var b [8]byte
	for _, r := range ranks {
		binary.LittleEndian.PutUint64(b[:], uint64(r))
		h.Write(b[:])
	}
	return "-" + strconv.FormatUint(uint64(h.Sum32()), 36)
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

// partStream marks a communicator's partitioned messages, which match
// apart from its other messages.
const partStream = "/part"

// sendOn counts a message this rank sends to dest on comm, in stream (""
// or partStream); 0 for ProcNull.
func (m *matcher) sendOn(comm *pmpi.Comm, stream string, dest, tag int) uint64 {
	if comm == nil || dest < 0 {
		return 0
	}
	src := comm.Rank()
	if comm.IsInter() {
		src, dest = m.self, comm.WorldRank(dest)
	}
	return m.send(m.commID(comm)+stream, src, dest, tag)
}

// recvOn counts a message this rank received on comm, in stream, from
// source with tag (a status's, which tells where an AnySource or AnyTag
// receive matched); 0 for ProcNull or a cancelled receive.
func (m *matcher) recvOn(comm *pmpi.Comm, stream string, source, tag int, cancelled bool) uint64 {
	if comm == nil || source < 0 || cancelled {
		return 0
	}
	dst := comm.Rank()
	if comm.IsInter() {
		// The groups number their ranks alike: a stream is named by
		// world ranks.
		source, dst = comm.WorldRank(source), m.self
	}
	return m.recv(m.commID(comm)+stream, source, dst, tag)
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
