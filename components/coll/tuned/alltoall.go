package tuned

import (
	"fmt"

	"github.com/gompi/gompi/frameworks/coll"
)

const tagAlltoall = coll.TagAlltoall

func (m *module) alltoall(c coll.Comm, send, recv []byte) error {
	n := c.Size()
	alg := m.cfg.alltoall
	if len(send)%n != 0 || len(recv) != len(send) {
		return wrap(alltoallAlgs, alg, fmt.Errorf("%d bytes sent, %d received: want the same, a multiple of %d ranks",
			len(send), len(recv), n))
	}
	bs := len(send) / n
	ch := m.choose(c, alltoallAlgs, alg, bs, decideAlltoall(n, bs))
	m.trace(c, alltoallAlgs, ch, bs)
	alg = ch.alg
	var err error
	switch alg {
	case alltoallPairwise:
		err = alltoallPairwiseRun(c, send, recv, bs)
	case alltoallBruck:
		err = m.alltoallBruckRun(c, send, recv, bs)
	default:
		err = alltoallLinearRun(c, send, recv, bs)
	}
	return wrap(alltoallAlgs, alg, err)
}

// alltoallLinearRun posts every receive, then every send, starting with
// the neighbours so that ranks do not all send to the same one first.
func alltoallLinearRun(c coll.Comm, send, recv []byte, bs int) error {
	n, r := c.Size(), c.Rank()
	copyOwn(recv[r*bs:(r+1)*bs], send[r*bs:(r+1)*bs])
	var reqsBuf [stackReqs]coll.Request
	reqs := reqsBuf[:0]
	for i := 1; i < n; i++ {
		src := (r - i + n) % n
		reqs = append(reqs, c.Irecv(recv[src*bs:(src+1)*bs], src, tagAlltoall))
	}
	for i := 1; i < n; i++ {
		dst := (r + i) % n
		reqs = append(reqs, c.Isend(send[dst*bs:(dst+1)*bs], dst, tagAlltoall))
	}
	return waitAll(reqs)
}

// alltoallPairwiseRun: in step s a rank sends to r+s and receives from
// r-s, one exchange in flight at a time.
func alltoallPairwiseRun(c coll.Comm, send, recv []byte, bs int) error {
	n, r := c.Size(), c.Rank()
	copyOwn(recv[r*bs:(r+1)*bs], send[r*bs:(r+1)*bs])
	var err error
	for s := 1; s < n; s++ {
		dst, src := (r+s)%n, (r-s+n)%n
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(send[dst*bs:(dst+1)*bs], err), dst, recv[src*bs:(src+1)*bs], src, tagAlltoall))
	}
	return err
}

// alltoallBruckRun: after a rotation, position i holds the block bound
// for rank r+i. In the step of distance k every block whose position has
// bit k set moves k ranks on, packed into one message, so ceil(log2 n)
// messages carry everything. Position i then holds the block from rank
// r-i.
func (m *module) alltoallBruckRun(c coll.Comm, send, recv []byte, bs int) error {
	n, r := c.Size(), c.Rank()
	tmp := m.pool.get(n * bs)
	half := (n + 1) / 2 * bs
	packs := m.pool.get(2 * half)
	defer func() {
		m.pool.put(tmp)
		m.pool.put(packs)
	}()
	out, in := packs[:half], packs[half:]
	copy(tmp, send[r*bs:])
	copy(tmp[(n-r)*bs:], send[:r*bs])
	var err error
	for k := 1; k < n; k <<= 1 {
		cnt := 0
		for i := k; i < n; i++ {
			if i&k != 0 {
				copy(out[cnt*bs:], tmp[i*bs:(i+1)*bs])
				cnt++
			}
		}
		err = coll.FirstError(err, coll.Sendrecv(c, coll.Payload(out[:cnt*bs], err), (r+k)%n, in[:cnt*bs], (r-k+n)%n, tagAlltoall))
		cnt = 0
		for i := k; i < n; i++ {
			if i&k != 0 {
				copy(tmp[i*bs:(i+1)*bs], in[cnt*bs:])
				cnt++
			}
		}
	}
	for i := 0; i < n; i++ {
		src := (r - i + n) % n
		copy(recv[src*bs:(src+1)*bs], tmp[i*bs:(i+1)*bs])
	}
	return err
}
