package han

import "github.com/gompi/gompi/frameworks/coll"

// The two levels run the same trees: a binomial tree over a list of
// ranks rooted at its first, among a node's ranks or among the nodes'
// representatives. A rank not in the list takes no part.
//
// Each takes the error the rank already met in the call, if any: a rank
// that failed still makes every receive and send of its part, so that
// no rank waits forever for it, but sends poison (coll.Payload: a failure
// mark, which fails the peer's receive as a peer's failure) instead of
// data, so the failure travels down the tree as an error.

// bcastTree passes buf from ranks[0] to every rank of ranks.
func bcastTree(c coll.Comm, ranks []int, buf []byte, tag int, err error) error {
	v, n := index(ranks, c.Rank()), len(ranks)
	if v < 0 || n < 2 {
		return err
	}
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			err = coll.FirstError(err, c.Recv(buf, ranks[v-mask], tag))
			break
		}
	}
	out := coll.Payload(buf, err)
	var reqs [maxChildren]coll.Request
	k := 0
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			reqs[k] = c.Isend(out, ranks[v+mask], tag)
			k++
		}
	}
	return coll.FirstError(err, c.Wait(reqs[:k]...))
}

// maxChildren bounds the children of a rank in a binomial tree.
const maxChildren = 64

// reduceTree reduces send over ranks to ranks[0] and returns the result
// there (nil elsewhere), which may be send itself. The operands combine
// in list order: a rank's subtree is the ranks after it in the list, so a
// non-commutative operation gets the fold in rank order when ranks is
// ascending.
func reduceTree(c coll.Comm, ranks []int, send []byte, op coll.Op, tag int, err error) ([]byte, error) {
	v, n := index(ranks, c.Rank()), len(ranks)
	if v < 0 {
		return nil, err
	}
	cur, spare := send, []byte(nil)
	isSend := true // cur is the caller's send: read only
	for mask := 1; mask < n; mask <<= 1 {
		if v&mask != 0 {
			return nil, coll.FirstError(err, c.Send(coll.Payload(cur, err), ranks[v-mask], tag))
		}
		if v+mask >= n {
			continue
		}
		if spare == nil {
			spare = make([]byte, len(send))
		}
		if err = coll.FirstError(err, c.Recv(spare, ranks[v+mask], tag)); err != nil {
			continue
		}
		// cur holds ranks v..v+mask-1, spare the ones after: spare = cur ⊕ spare.
		op.Reduce(cur, spare)
		if isSend {
			cur, spare, isSend = spare, nil, false
		} else {
			cur, spare = spare, cur
		}
	}
	return cur, err
}
