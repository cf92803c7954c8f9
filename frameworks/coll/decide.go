package coll

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
)

// commRules asks the highest-priority candidate that is a Decider for c's
// rules and checks that every member of c got the same ones. A decider
// that failed on some member, or answered differently there, would have
// the members run different algorithms of one collective and hang: so
// unless all agree, none uses rules. The check is one small reduce and
// bcast, once per communicator, and only when there is a decider.
// disagreed says the members' rules differed and were dropped.
func commRules(c Comm, candidates []Candidate) (rules *Rules, disagreed bool, err error) {
	var d Decider
	best := 0
	for _, cand := range candidates {
		if cd, ok := cand.Component.(Decider); ok && (d == nil || cand.Priority > best) {
			d, best = cd, cand.Priority
		}
	}
	if d == nil {
		return nil, false, nil
	}
	rules, err = d.CommRules(c)
	if err != nil {
		rules = nil // the decider reported it; the built-in decision serves c
	}
	same, err := agree(c, rules.fingerprint())
	if err != nil {
		return nil, false, fmt.Errorf("coll: checking the rules of %s on every rank: %w", c.Name(), err)
	}
	if !same {
		return nil, true, nil
	}
	return rules, false, nil
}

// fingerprint hashes the rules; 0 stands for none.
func (t *Rules) fingerprint() uint64 {
	if t == nil {
		return 0
	}
	h := fnv.New64a()
	for _, r := range t.rules {
		fmt.Fprintf(h, "%s|%v|%v|%s|%d\n", r.Collective, r.Ranks, r.Bytes, r.Algorithm, r.Segsize)
	}
	return h.Sum64() | 1
}

// agree reports, on every member of c, whether all members passed the
// same fp: a binomial reduce of the least and greatest fp to rank 0, then
// a binomial bcast of the verdict.
func agree(c Comm, fp uint64) (bool, error) {
	n, r := c.Size(), c.Rank()
	if n == 1 {
		return true, nil
	}
	lo, hi := fp, fp
	var buf [16]byte
	// Reduce: rank r receives from r+2^k for every 2^k below its lowest
	// set bit, then sends to r minus that bit.
	mask := 1
	for ; mask < n && r&mask == 0; mask <<= 1 {
		if r+mask >= n {
			continue
		}
		if err := c.Recv(buf[:], r+mask, TagRules); err != nil {
			return false, err
		}
		lo = min(lo, binary.LittleEndian.Uint64(buf[:8]))
		hi = max(hi, binary.LittleEndian.Uint64(buf[8:]))
	}
	verdict := []byte{0}
	if r != 0 {
		binary.LittleEndian.PutUint64(buf[:8], lo)
		binary.LittleEndian.PutUint64(buf[8:], hi)
		if err := c.Send(buf[:], r-mask, TagRules); err != nil {
			return false, err
		}
		if err := c.Recv(verdict, r-mask, TagRules); err != nil {
			return false, err
		}
	} else if lo == hi {
		verdict[0] = 1
	}
	// Bcast down the same tree: the children are r+2^k below mask.
	for k := mask >> 1; k > 0; k >>= 1 {
		if r+k < n {
			if err := c.Send(verdict, r+k, TagRules); err != nil {
				return false, err
			}
		}
	}
	return verdict[0] == 1, nil
}

// AgreeDeciders returns candidates without their deciders unless every
// member of c (the world, at Init) has one: a decision plugin that failed to
// start on some ranks only would leave those ranks out of the rules check
// that every communicator's Build runs, and the others would wait for them
// forever. dropped says whether this rank gave up its decider.
func AgreeDeciders(c Comm, candidates []Candidate) (kept []Candidate, dropped bool, err error) {
	has := false
	for _, cand := range candidates {
		if _, ok := cand.Component.(Decider); ok {
			has = true
		}
	}
	fp := uint64(1)
	if has {
		fp = 2
	}
	same, err := agree(c, fp)
	if err != nil {
		return nil, false, fmt.Errorf("coll: checking the decision components on every rank of %s: %w", c.Name(), err)
	}
	if same {
		return candidates, false, nil
	}
	for _, cand := range candidates {
		if _, ok := cand.Component.(Decider); !ok {
			kept = append(kept, cand)
		}
	}
	return kept, has, nil
}

// AgreeHost returns what every member of c (the world, at Init) should
// pass to Build: local, unless members on different hosts see it
// differently; the host is then taken as oversubscribed wherever one rank's
// is, since a collective's algorithm must be the same on every member.
func AgreeHost(c Comm, local Host) (Host, error) {
	fp := uint64(1)
	if local.Oversubscribed {
		fp = 2
	}
	same, err := agree(c, fp)
	if err != nil {
		return Host{}, fmt.Errorf("coll: comparing the hosts of the ranks of %s: %w", c.Name(), err)
	}
	return Host{Oversubscribed: local.Oversubscribed || !same}, nil
}
