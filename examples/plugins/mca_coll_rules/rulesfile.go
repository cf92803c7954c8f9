package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gompi/gompi/components/coll/tuned"
	"github.com/gompi/gompi/frameworks/coll"
)

// The rules file has one rule per line, the first match winning:
//
//	# collective  ranks  bytes     algorithm  [segsize]
//	bcast         *      0-64k     binomial
//	bcast         8-     64k-      pipeline   32k
//	allreduce     *      *         ring
//
// ranks and bytes are ranges: N, N-M, N- (no upper bound) or * (any);
// sizes take a k, m or g suffix (powers of 1024). bytes is the message
// size as coll.Rule.Bytes defines it. The algorithm is coll tuned's name
// (coll_tuned_<collective>_algorithm's values, or auto for its built-in
// decision). '#' starts a comment.
const formatHelp = "a rule is: collective ranks bytes algorithm [segsize], " +
	"ranges N, N-M, N- or *, sizes with k, m or g (powers of 1024)"

// parseRules reads a rules file; name is the file's name, for errors.
func parseRules(r io.Reader, name string) (*coll.Rules, error) {
	var rules []coll.Rule
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		rule, err := parseRule(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w (%s)", name, line, err, formatHelp)
		}
		rules = append(rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t, err := coll.NewRules(rules)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

func parseRule(f []string) (coll.Rule, error) {
	if len(f) < 4 || len(f) > 5 {
		return coll.Rule{}, fmt.Errorf("%d fields, want 4 or 5", len(f))
	}
	r := coll.Rule{Collective: f[0], Algorithm: f[3]}
	if !slices.Contains(coll.Collectives, r.Collective) {
		return coll.Rule{}, fmt.Errorf("unknown collective %q: want one of %s", r.Collective, strings.Join(coll.Collectives, ", "))
	}
	var err error
	if r.Ranks, err = parseRange(f[1]); err != nil {
		return coll.Rule{}, fmt.Errorf("ranks %q: %w", f[1], err)
	}
	if r.Ranks.Max == 0 {
		return coll.Rule{}, fmt.Errorf("ranks %q: a communicator has at least 1 rank", f[1])
	}
	if r.Bytes, err = parseRange(f[2]); err != nil {
		return coll.Rule{}, fmt.Errorf("bytes %q: %w", f[2], err)
	}
	if err := tuned.CheckRule(r.Collective, r.Algorithm); err != nil {
		return coll.Rule{}, err
	}
	if len(f) == 5 {
		seg, err := parseSize(f[4])
		if err != nil || seg > 1<<30 {
			return coll.Rule{}, fmt.Errorf("segsize %q: want a size up to 1g", f[4])
		}
		r.Segsize = int(seg)
	}
	return r, nil
}

// parseRange reads N, N-M, N- or *.
func parseRange(s string) (coll.Range, error) {
	if s == "*" {
		return coll.Any, nil
	}
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := parseSize(lo)
	if err != nil {
		return coll.Range{}, err
	}
	if !isRange {
		return coll.Range{Min: min, Max: min}, nil
	}
	if hi == "" {
		return coll.Range{Min: min, Max: -1}, nil
	}
	max, err := parseSize(hi)
	if err != nil {
		return coll.Range{}, err
	}
	if max < min {
		return coll.Range{}, fmt.Errorf("ends before it starts")
	}
	return coll.Range{Min: min, Max: max}, nil
}

// parseSize reads a non-negative number with an optional k, m or g.
func parseSize(s string) (int64, error) {
	shift := 0
	switch strings.ToLower(s[len(s)-min(1, len(s)):]) {
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	}
	digits := s
	if shift > 0 {
		digits = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	return n << shift, nil
}
