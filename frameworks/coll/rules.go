package coll

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Rules is a decision table: for a collective, a communicator size and a
// message size, which algorithm runs. A decider component (Decider) gives
// them per communicator; the algorithm components read them in CommQuery
// (Query.Rules). Algorithm names belong to the component that runs them
// (tuned's are those of its coll_tuned_<collective>_algorithm parameters).
// A Rules is read-only once made, so modules share it freely.
type Rules struct {
	rules []Rule
	// byColl holds, by the index in Collectives, the indexes of the rules
	// of that collective in order.
	byColl [numCollectives][]int
}

// Rule is one line of a decision table. Ranges are inclusive; the first
// rule that matches wins.
type Rule struct {
	Collective string // one of Collectives
	Ranks      Range  // the communicator's size
	// Bytes is the message size as the algorithm components see it: the
	// buffer of bcast, the vector of reduce, allreduce and scan, one
	// rank's block of gather, scatter and allgather, the block each pair
	// exchanges in alltoall; 0 for barrier.
	Bytes     Range
	Algorithm string
	// Segsize is the segment size in bytes the algorithm cuts the message
	// into, for those that cut it (0: the component's own setting).
	Segsize int
}

// Range is an inclusive range; Max < 0 means no upper bound.
type Range struct {
	Min, Max int64
}

// Any is the range of every value.
var Any = Range{Min: 0, Max: -1}

// Contains reports whether v lies in r.
func (r Range) Contains(v int64) bool { return v >= r.Min && (r.Max < 0 || v <= r.Max) }

func (r Range) String() string {
	if r.Max < 0 {
		return fmt.Sprintf("%d-", r.Min)
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

func (r Range) check() error {
	switch {
	case r.Min < 0:
		return fmt.Errorf("range %v starts below 0", r)
	case r.Max >= 0 && r.Max < r.Min:
		return fmt.Errorf("range %d-%d ends before it starts", r.Min, r.Max)
	}
	return nil
}

// ErrBadRules marks a decision table that cannot be used.
var ErrBadRules = errors.New("bad collective rules")

// NewRules checks rules and makes a table of them: every collective must be
// one of Collectives, ranges must be non-empty and start at 0 or above,
// an algorithm must be named and a segment size must not be negative.
func NewRules(rules []Rule) (*Rules, error) {
	t := &Rules{rules: slices.Clone(rules)}
	for i, r := range t.rules {
		k := slices.Index(Collectives, r.Collective)
		if k < 0 {
			return nil, fmt.Errorf("%w: rule %d: unknown collective %q (want one of %s)",
				ErrBadRules, i+1, r.Collective, strings.Join(Collectives, ", "))
		}
		if err := r.Ranks.check(); err != nil {
			return nil, fmt.Errorf("%w: rule %d (%s): communicator size: %w", ErrBadRules, i+1, r.Collective, err)
		}
		if r.Ranks.Max == 0 {
			return nil, fmt.Errorf("%w: rule %d (%s): a communicator has at least 1 rank", ErrBadRules, i+1, r.Collective)
		}
		if err := r.Bytes.check(); err != nil {
			return nil, fmt.Errorf("%w: rule %d (%s): message size: %w", ErrBadRules, i+1, r.Collective, err)
		}
		if strings.TrimSpace(r.Algorithm) == "" {
			return nil, fmt.Errorf("%w: rule %d (%s): no algorithm", ErrBadRules, i+1, r.Collective)
		}
		if r.Segsize < 0 {
			return nil, fmt.Errorf("%w: rule %d (%s): negative segment size %d", ErrBadRules, i+1, r.Collective, r.Segsize)
		}
		t.byColl[k] = append(t.byColl[k], i)
	}
	return t, nil
}

// Lookup returns the first rule of collective that matches a communicator
// of ranks ranks and a message of bytes bytes. A nil table has no rules.
func (t *Rules) Lookup(collective string, ranks int, bytes int64) (Rule, bool) {
	for _, r := range t.For(collective, ranks) {
		if r.Bytes.Contains(bytes) {
			return r, true
		}
	}
	return Rule{}, false
}

// For returns, in order, the rules of collective that match a communicator
// of ranks ranks: a component can select them once per communicator and
// match only the message size per call.
func (t *Rules) For(collective string, ranks int) []Rule {
	if t == nil {
		return nil
	}
	k := slices.Index(Collectives, collective)
	if k < 0 {
		return nil
	}
	var out []Rule
	for _, i := range t.byColl[k] {
		if r := t.rules[i]; r.Ranks.Contains(int64(ranks)) {
			out = append(out, r)
		}
	}
	return out
}

// All returns every rule, in order.
func (t *Rules) All() []Rule {
	if t == nil {
		return nil
	}
	return slices.Clone(t.rules)
}

// Len is the number of rules.
func (t *Rules) Len() int {
	if t == nil {
		return 0
	}
	return len(t.rules)
}
