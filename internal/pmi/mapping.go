package pmi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errNoMapping is Node's error when the launcher gave no layout.
var errNoMapping = errors.New("pmi: the launcher gave no PMI_process_mapping, so the node layout is unknown")

// block is one (start,nodes,ppn) triple: nodes consecutive node ids from
// start, each given ppn consecutive ranks.
type block struct{ start, nodes, ppn int }

// parseMapping reads "(vector,(start,nodes,ppn),...)", the form Hydra and
// Slurm give PMI_process_mapping; spaces are allowed between tokens.
func parseMapping(s string) ([]block, error) {
	p := mappingParser{s: s}
	p.expect("(")
	p.expect("vector")
	var blocks []block
	for p.err == nil && p.peek() == ',' {
		p.expect(",")
		p.expect("(")
		var b block
		b.start = p.number()
		p.expect(",")
		b.nodes = p.number()
		p.expect(",")
		b.ppn = p.number()
		p.expect(")")
		blocks = append(blocks, b)
	}
	p.expect(")")
	if p.err == nil && strings.TrimSpace(p.s[p.i:]) != "" {
		p.fail("end of the mapping")
	}
	if p.err != nil {
		return nil, p.err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("PMI_process_mapping %q has no (start,nodes,ppn) block", s)
	}
	return blocks, nil
}

type mappingParser struct {
	s   string
	i   int
	err error
}

func (p *mappingParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *mappingParser) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *mappingParser) fail(want string) {
	if p.err == nil {
		p.err = fmt.Errorf("PMI_process_mapping %q: expected %s at offset %d", p.s, want, p.i)
	}
}

func (p *mappingParser) expect(tok string) {
	if p.err != nil {
		return
	}
	p.skipSpace()
	if !strings.HasPrefix(p.s[p.i:], tok) {
		p.fail(strconv.Quote(tok))
		return
	}
	p.i += len(tok)
}

func (p *mappingParser) number() int {
	if p.err != nil {
		return 0
	}
	p.skipSpace()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(p.s[p.i:j])
	if err != nil || j-p.i > 9 {
		p.fail("a number")
		return 0
	}
	p.i = j
	return n
}

// nodeIDs gives the node of each of size ranks. The blocks are laid out
// in order; when they describe fewer ranks than size, the layout repeats
// from the first block that starts at node 0 (the whole list if none
// does), as MPICH reads it: Hydra gives (vector,(0,1,2)) for 4 ranks on
// a host it was told has 2 slots, meaning all 4 share node 0.
func nodeIDs(blocks []block, size int) ([]int, error) {
	placesAny := false
	restart := 0
	for i, b := range blocks {
		placesAny = placesAny || b.nodes > 0 && b.ppn > 0
		if b.start == 0 && restart == 0 && i > 0 && blocks[0].start != 0 {
			restart = i
		}
	}
	if !placesAny {
		return nil, fmt.Errorf("PMI_process_mapping places no rank (every block has 0 nodes or 0 ranks per node)")
	}
	ids := make([]int, 0, size)
	from := 0
	for len(ids) < size {
		placed := 0
		for _, b := range blocks[from:] {
			for n := 0; n < b.nodes && len(ids) < size; n++ {
				for k := 0; k < b.ppn && len(ids) < size; k++ {
					ids = append(ids, b.start+n)
					placed++
				}
			}
		}
		if placed == 0 {
			return nil, fmt.Errorf("PMI_process_mapping places no rank when it repeats from block %d", from+1)
		}
		from = restart
	}
	return ids, nil
}

// nodeOf finds rank's node and its neighbours from the mapping.
func nodeOf(mapping string, found bool, rank, size int) (Node, error) {
	if !found || strings.TrimSpace(mapping) == "" {
		return Node{}, errNoMapping
	}
	blocks, err := parseMapping(mapping)
	if err == nil {
		var ids []int
		if ids, err = nodeIDs(blocks, size); err == nil {
			node := Node{ID: ids[rank]}
			for r, id := range ids {
				if id == node.ID {
					if r == rank {
						node.LocalRank = len(node.Ranks)
					}
					node.Ranks = append(node.Ranks, r)
				}
			}
			return node, nil
		}
	}
	return Node{}, fmt.Errorf("pmi: %w", err)
}
