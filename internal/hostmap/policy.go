package hostmap

import (
	"fmt"
	"strconv"
	"strings"
)

// Mapping is how Place decides the number of ranks on each host.
type Mapping int

const (
	// MapDefault is --map-by not given; it maps as MapSlot, and tells
	// Place that -N may be used without a conflict.
	MapDefault Mapping = iota
	// MapSlot fills each host's slots in host order (--map-by slot).
	MapSlot
	// MapNode deals ranks to the hosts in turn (--map-by node), skipping
	// hosts whose slots are full.
	MapNode
	// MapPPR puts MapBy.PerNode ranks on each host in order
	// (--map-by ppr:N:node).
	MapPPR
)

// MapBy is a parsed --map-by value.
type MapBy struct {
	Mapping Mapping
	PerNode int // ranks per host, for MapPPR
	// Oversubscribe is the :OVERSUBSCRIBE modifier, Open MPI 5's spelling
	// of --oversubscribe.
	Oversubscribe bool
}

// mapByHelp says what ParseMapBy accepts.
const mapByHelp = "want slot, node or ppr:N:node, optionally followed by :oversubscribe"

// ParseMapBy reads a --map-by value: slot, node or ppr:N:node, each
// optionally followed by :OVERSUBSCRIBE. Case does not matter, as in Open
// MPI. Open MPI's hardware objects (core, socket, numa...) are refused:
// gompi knows hosts and slots, not the hosts' topology.
func ParseMapBy(s string) (MapBy, error) {
	parts := strings.Split(strings.ToLower(s), ":")
	var m MapBy
	switch parts[0] {
	case "slot":
		m.Mapping, parts = MapSlot, parts[1:]
	case "node":
		m.Mapping, parts = MapNode, parts[1:]
	case "ppr":
		if len(parts) < 3 {
			return MapBy{}, fmt.Errorf("--map-by %s: ppr needs a count and an object: want ppr:N:node", s)
		}
		n, err := positive(parts[1])
		if err != nil {
			return MapBy{}, fmt.Errorf("--map-by %s: ranks per node %q: %w", s, parts[1], err)
		}
		if parts[2] != "node" {
			return MapBy{}, fmt.Errorf("--map-by %s: ppr per %q: only ppr:N:node is supported", s, parts[2])
		}
		m.Mapping, m.PerNode, parts = MapPPR, n, parts[3:]
	case "":
		// ":oversubscribe" alone keeps the default mapping.
		if len(parts) == 1 {
			return MapBy{}, fmt.Errorf("--map-by is empty: %s", mapByHelp)
		}
		parts = parts[1:]
	default:
		return MapBy{}, fmt.Errorf("--map-by %s: unknown policy %q: %s", s, parts[0], mapByHelp)
	}
	for _, mod := range parts {
		switch mod {
		case "oversubscribe":
			m.Oversubscribe = true
		default:
			return MapBy{}, fmt.Errorf("--map-by %s: unknown modifier %q: only :oversubscribe is supported", s, mod)
		}
	}
	return m, nil
}

// String gives the value in --map-by's syntax.
func (m MapBy) String() string {
	var s string
	switch m.Mapping {
	case MapDefault, MapSlot:
		s = "slot"
	case MapNode:
		s = "node"
	case MapPPR:
		s = "ppr:" + strconv.Itoa(m.PerNode) + ":node"
	}
	if m.Oversubscribe {
		s += ":oversubscribe"
	}
	return s
}

// RankBy is how Place numbers the ranks once each host's count is known.
type RankBy int

const (
	// RankDefault follows the mapping, as Open MPI does: by node after
	// --map-by node, by slot otherwise.
	RankDefault RankBy = iota
	// RankSlot numbers all of a host's ranks before the next host's.
	RankSlot
	// RankNode numbers one rank on each host in turn, skipping hosts that
	// have no more.
	RankNode
)

// ParseRankBy reads a --rank-by value: slot or node.
func ParseRankBy(s string) (RankBy, error) {
	switch strings.ToLower(s) {
	case "slot":
		return RankSlot, nil
	case "node":
		return RankNode, nil
	}
	return RankDefault, fmt.Errorf("--rank-by %s: unknown policy: want slot or node", s)
}

// String gives the value in --rank-by's syntax.
func (r RankBy) String() string {
	if r == RankNode {
		return "node"
	}
	return "slot"
}
