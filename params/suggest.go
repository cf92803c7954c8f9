package params

import (
	"cmp"
	"slices"
	"strings"
)

// suggest returns up to three registered names close to an unknown one:
// within a small edit distance (ignoring case), or containing it.
func suggest(unknown string, names []string) []string {
	u := strings.ToLower(unknown)
	limit := max(2, len(u)/4)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for _, n := range names {
		d := editDistance(u, n)
		if d <= limit || (len(u) >= 3 && strings.Contains(n, u)) {
			cands = append(cands, cand{n, d})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.name, b.name))
	})
	var out []string
	for _, c := range cands[:min(3, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (parameter names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
