package hostmap

import (
	"fmt"
	"strconv"
	"strings"
)

// SlurmHosts gives the hosts of a Slurm allocation: nodeList is
// SLURM_JOB_NODELIST and perNode is SLURM_TASKS_PER_NODE, which Open MPI's
// Slurm support takes as each node's slots (SLURM_JOB_CPUS_PER_NODE has the
// same form, for a caller that wants CPUs instead).
func SlurmHosts(nodeList, perNode string) ([]Host, error) {
	names, err := ExpandNodeList(nodeList)
	if err != nil {
		return nil, err
	}
	counts, err := ParseTasksPerNode(perNode)
	if err != nil {
		return nil, err
	}
	if len(names) != len(counts) {
		return nil, fmt.Errorf("node list %q has %d nodes but count list %q has %d counts: want one count per node", nodeList, len(names), perNode, len(counts))
	}
	hosts := make([]Host, len(names))
	index := make(map[string]bool, len(names))
	for i, name := range names {
		if index[name] {
			return nil, fmt.Errorf("node list %q names %s twice: want each node once", nodeList, name)
		}
		index[name] = true
		hosts[i] = Host{Name: name, Slots: counts[i]}
	}
	return hosts, nil
}

// maxNodes bounds what a node list may expand to: larger than any Slurm
// allocation, small enough that "n[0-999999999]" is an error, not a hang.
const maxNodes = 1 << 16

// ExpandNodeList expands a Slurm host list, as "scontrol show hostnames"
// does: "h[1-3],gpu[01-02,7],login" is h1 h2 h3 gpu01 gpu02 gpu7 login.
// Each range keeps the width of its own lower bound ([08-10] is 08 09 10;
// the 7 above stays 7, as in Slurm), and
// several bracket groups in one name give every combination, the leftmost
// group varying slowest ("r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2).
func ExpandNodeList(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("node list is empty: want names such as h[1-3],login")
	}
	var names []string
	for _, item := range splitTopLevel(s) {
		expanded, err := expandName(item, maxNodes-len(names))
		if err != nil {
			return nil, fmt.Errorf("node list %q: %w", s, err)
		}
		names = append(names, expanded...)
	}
	return names, nil
}

// splitTopLevel splits s at the commas outside brackets.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandName expands one name with bracket groups into at most limit names.
func expandName(item string, limit int) ([]string, error) {
	if item == "" {
		return nil, fmt.Errorf("empty name between commas")
	}
	names := []string{""}
	rest := item
	for rest != "" {
		open := strings.IndexAny(rest, "[]")
		if open < 0 {
			names = appendSuffix(names, rest)
			break
		}
		if rest[open] == ']' {
			return nil, fmt.Errorf("%s: ] without [", item)
		}
		names = appendSuffix(names, rest[:open])
		end := strings.IndexByte(rest[open:], ']')
		if end < 0 {
			return nil, fmt.Errorf("%s: [ without ]", item)
		}
		group := rest[open+1 : open+end]
		if strings.Contains(group, "[") {
			return nil, fmt.Errorf("%s: brackets inside brackets", item)
		}
		values, err := expandGroup(group, limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", item, err)
		}
		if len(names)*len(values) > limit {
			return nil, fmt.Errorf("%s: expands to more than %d names", item, maxNodes)
		}
		product := make([]string, 0, len(names)*len(values))
		for _, n := range names {
			for _, v := range values {
				product = append(product, n+v)
			}
		}
		names = product
		rest = rest[open+end+1:]
	}
	for _, n := range names {
		if err := checkName(n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func appendSuffix(names []string, suffix string) []string {
	for i := range names {
		names[i] += suffix
	}
	return names
}

// expandGroup expands the inside of one bracket group: "01-02,7".
func expandGroup(group string, limit int) ([]string, error) {
	var values []string
	for _, r := range strings.Split(group, ",") {
		loText, hiText, isRange := strings.Cut(r, "-")
		if !isRange {
			hiText = loText
		}
		lo, err1 := strconv.ParseUint(loText, 10, 31)
		hi, err2 := strconv.ParseUint(hiText, 10, 31)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("[%s]: %q: want a number or a range such as 1-4 or 01-16", group, r)
		}
		if lo > hi {
			return nil, fmt.Errorf("[%s]: range %s goes down: want low-high", group, r)
		}
		if hi-lo >= uint64(limit) || len(values)+int(hi-lo) >= limit {
			return nil, fmt.Errorf("[%s]: expands to more than %d names", group, maxNodes)
		}
		for v := lo; v <= hi; v++ {
			values = append(values, fmt.Sprintf("%0*d", len(loText), v))
		}
	}
	return values, nil
}

// ParseTasksPerNode expands a Slurm per-node count list such as
// SLURM_TASKS_PER_NODE or SLURM_JOB_CPUS_PER_NODE: "2(x3),1" is 2 2 2 1.
func ParseTasksPerNode(s string) ([]int, error) {
	var counts []int
	for _, item := range strings.Split(s, ",") {
		value, repeat := item, "1"
		if v, r, ok := strings.Cut(item, "(x"); ok {
			var closed bool
			if repeat, closed = strings.CutSuffix(r, ")"); !closed {
				return nil, fmt.Errorf("count list %q: %q: want N or N(xR)", s, item)
			}
			value = v
		}
		n, err := positive(value)
		if err != nil {
			return nil, fmt.Errorf("count list %q: count %q: %w", s, value, err)
		}
		times, err := positive(repeat)
		if err != nil {
			return nil, fmt.Errorf("count list %q: repeat %q in %s: %w", s, repeat, item, err)
		}
		if len(counts)+times > maxNodes {
			return nil, fmt.Errorf("count list %q: more than %d counts", s, maxNodes)
		}
		for range times {
			counts = append(counts, n)
		}
	}
	return counts, nil
}
