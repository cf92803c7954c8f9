package tuned

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

const (
	tagGather  = coll.TagGather
	tagScatter = coll.TagScatter
)

func (m *module) gather(c coll.Comm, send, recv []byte, root int) error {
	alg := m.cfg.gather
	if err := checkRoot(c, root); err != nil {
		return wrap(gatherAlgs, alg, err)
	}
	if c.Rank() == root && len(recv) != c.Size()*len(send) {
		return wrap(gatherAlgs, alg, fmt.Errorf("receive buffer of %d bytes for %d ranks of %d bytes",
			len(recv), c.Size(), len(send)))
	}
	ch := m.choose(c, gatherAlgs, alg, len(send), decideGather(len(send)))
	m.trace(c, gatherAlgs, ch, len(send))
	alg = ch.alg
	var err error
	switch alg {
	case gatherLinear:
		err = gatherLinearRun(c, send, recv, root)
	default:
		err = m.gatherBinomialRun(c, send, recv, root)
	}
	return wrap(gatherAlgs, alg, err)
}

func gatherLinearRun(c coll.Comm, send, recv []byte, root int) error {
	n, r, bs := c.Size(), c.Rank(), len(send)
	if r != root {
		return c.Send(send, root, tagGather)
	}
	copy(recv[r*bs:], send)
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for i := 1; i < n; i++ {
		src := (root + i) % n
		reqs = append(reqs, c.Irecv(recv[src*bs:(src+1)*bs], src, tagGather))
	}
	return waitAll(reqs)
}

// subtree is the number of virtual ranks in v's binomial subtree.
func subtree(v, n int) int {
	if v == 0 {
		return n
	}
	return min(lowBit(v), n-v)
}

// gatherBinomialRun: in virtual ranks rotated to the root, rank v collects
// the blocks of its subtree v, v+1... from its children and passes them up
// in one message.
func (m *module) gatherBinomialRun(c coll.Comm, send, recv []byte, root int) error {
	n, r, bs := c.Size(), c.Rank(), len(send)
	v := (r - root + n) % n
	sub := subtree(v, n)
	if sub == 1 && v != 0 {
		return c.Send(send, (v-lowBit(v)+root)%n, tagGather)
	}
	var tmp []byte
	if root == 0 && v == 0 {
		tmp = recv // virtual order is rank order
	} else {
		tmp = m.pool.get(sub * bs)
		defer m.pool.put(tmp)
	}
	copy(tmp, send)
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for mask := 1; mask < sub; mask <<= 1 {
		child := v + mask
		cs := subtree(child, n)
		reqs = append(reqs, c.Irecv(tmp[mask*bs:(mask+cs)*bs], (child+root)%n, tagGather))
	}
	err := waitAll(reqs)
	if v != 0 {
		return coll.FirstError(err, c.Send(coll.Payload(tmp, err), (v-lowBit(v)+root)%n, tagGather))
	}
	if root != 0 {
		copy(recv[root*bs:], tmp[:(n-root)*bs])
		copy(recv[:root*bs], tmp[(n-root)*bs:])
	}
	return err
}

func (m *module) scatter(c coll.Comm, send, recv []byte, root int) error {
	alg := m.cfg.scatter
	if err := checkRoot(c, root); err != nil {
		return wrap(scatterAlgs, alg, err)
	}
	if c.Rank() == root && len(send) != c.Size()*len(recv) {
		return wrap(scatterAlgs, alg, fmt.Errorf("send buffer of %d bytes for %d ranks of %d bytes",
			len(send), c.Size(), len(recv)))
	}
	ch := m.choose(c, scatterAlgs, alg, len(recv), decideScatter(len(recv)))
	m.trace(c, scatterAlgs, ch, len(recv))
	alg = ch.alg
	var err error
	switch alg {
	case scatterLinear:
		err = scatterLinearRun(c, send, recv, root)
	default:
		err = m.scatterBinomialRun(c, send, recv, root)
	}
	return wrap(scatterAlgs, alg, err)
}

func scatterLinearRun(c coll.Comm, send, recv []byte, root int) error {
	n, r, bs := c.Size(), c.Rank(), len(recv)
	if r != root {
		return c.Recv(recv, root, tagScatter)
	}
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for i := 1; i < n; i++ {
		dst := (root + i) % n
		reqs = append(reqs, c.Isend(send[dst*bs:(dst+1)*bs], dst, tagScatter))
	}
	copy(recv, send[r*bs:])
	return waitAll(reqs)
}

// scatterBinomialRun is gatherBinomialRun reversed: rank v receives its
// subtree's blocks from its parent and hands each child its subtree's,
// the largest first.
func (m *module) scatterBinomialRun(c coll.Comm, send, recv []byte, root int) error {
	n, r, bs := c.Size(), c.Rank(), len(recv)
	v := (r - root + n) % n
	sub := subtree(v, n)
	if sub == 1 && v != 0 {
		return c.Recv(recv, (v-lowBit(v)+root)%n, tagScatter)
	}
	var tmp []byte
	var err error
	switch {
	case v == 0 && root == 0:
		tmp = send
	case v == 0:
		tmp = m.pool.get(n * bs)
		defer m.pool.put(tmp)
		copy(tmp, send[root*bs:])
		copy(tmp[(n-root)*bs:], send[:root*bs])
	default:
		tmp = m.pool.get(sub * bs)
		defer m.pool.put(tmp)
		err = c.Recv(tmp, (v-lowBit(v)+root)%n, tagScatter)
	}
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for mask := pof2Ceil(sub) >> 1; mask > 0; mask >>= 1 {
		if child := v + mask; mask < sub {
			cs := subtree(child, n)
			reqs = append(reqs, c.Isend(coll.Payload(tmp[mask*bs:(mask+cs)*bs], err), (child+root)%n, tagScatter))
		}
	}
	copy(recv, tmp[:bs])
	return coll.FirstError(err, waitAll(reqs))
}
