package stats

import "github.com/gompi/gompi/pmpi"

// Layer is the stats layer for tests in package stats_test.
type Layer = module

// NewLayer returns a stats layer over next whose world is world, of size
// ranks, as after Init.
func NewLayer(next pmpi.API, world *pmpi.Comm, size int) *Layer {
	m := newModule(next, config{output: "unused", top: 20, svg: true})
	m.world = world
	m.setWorld(0, size)
	return m
}

// Flush ends the phase and returns it as rank 0 would send it.
func (m *module) Flush() PhasePart {
	m.flush("pcontrol")
	return part(0, 1, "", m.cfg, m.phases[len(m.phases)-1:], 1).Phases[0]
}

// PhasePart is one phase of one rank.
type PhasePart = phasePart

// WriteSVG draws the report's heatmaps.
var WriteSVG = writeSVG
