package han

import "github.com/gompi/gompi/frameworks/coll"

// The two levels run the same trees: a binomial tree over a list of
// ranks rooted at its first, among a node's ranks or among the nodes'
// representatives. A rank not in the list takes no part.

// bcastTree passes buf from ranks[0] to every rank of ranks.
func bcastTree(c coll.Comm, ranks []int, buf []byte, tag int) error {
	v, n := index(ranks, c.Rank()), len(ranks)
	if v < 0 || n < 2 {
		return nil
	}
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			if err := c.Recv(buf, ranks[v-mask], tag); err != nil {
				return err
			}
			break
		}
	}
	var reqs [maxChildren]coll.Request
	k := 0
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			reqs[k] = c.Isend(buf, ranks[v+mask], tag)
			k++
		}
	}
	return c.Wait(reqs[:k]...)
}

// maxChildren bounds the children of a rank in a binomial tree.
const maxChildren = 64

// reduceTree reduces send over ranks to ranks[0] and returns the result
// there (nil elsewhere), which may be send itself. The operands combine
// in list order: a rank's subtree is the ranks after it in the list, so a
// non-commutative operation gets the fold in rank order when ranks is
// ascending.
func reduceTree(c coll.Comm, ranks []int, send []byte, op coll.Op, tag int) ([]byte, error) {
	v, n := index(ranks, c.Rank()), len(ranks)
	if v < 0 {
		return nil, nil
	}
	cur, spare := send, []byte(nil)
	isSend := true // cur is the caller's send: read only
	for mask := 1; mask < n; mask <<= 1 {
		if v&mask != 0 {
			return nil, c.Send(cur, ranks[v-mask], tag)
		}
		if v+mask >= n {
			continue
		}
		if spare == nil {
			spare = make([]byte, len(send))
		}
		if err := c.Recv(spare, ranks[v+mask], tag); err != nil {
			return nil, err
		}
		// cur holds ranks v..v+mask-1, spare the ones after: spare = cur ⊕ spare.
		op.Reduce(cur, spare)
		if isSend {
			cur, spare, isSend = spare, nil, false
		} else {
			cur, spare = spare, cur
		}
	}
	return cur, nil
}
