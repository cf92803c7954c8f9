package han

import "github.com/gompi/gompi/frameworks/coll"

// The values of every coll_han_<collective>_algorithm parameter.
const (
	modeAuto         = "auto"
	modeHierarchical = "hierarchical"
	modeNext         = "next"
)

// config is what the component's parameters say, by the index in
// collectives.
type config struct {
	mode [len(collectives)]string
	// tunedForced: the user forced tuned's algorithm for the collective,
	// which han's auto mode respects by stepping aside.
	tunedForced [len(collectives)]bool
}

// collective is one collective han provides: its name, how han runs it
// (for the parameter's help), and how to take it out of a module.
type collective struct {
	name  string
	help  string
	clear func(*coll.Module)
}

// collectives are the collectives han provides, each with its parameter.
var collectives = [...]collective{
	{"barrier", "fan-in to each node's leader, a barrier among the leaders (one round in which each tells every " +
		"other on up to 8 nodes, a dissemination barrier on more), fan-out",
		func(m *coll.Module) { m.Barrier = nil }},
	{"bcast", "a binomial tree among the root and the other nodes' leaders, then one in each node",
		func(m *coll.Module) { m.Bcast = nil }},
	{"reduce", "a binomial reduce in each node to its leader, then among the leaders, the result sent to the root; " +
		"a non-commutative operation stays hierarchical only where every node's ranks are consecutive",
		func(m *coll.Module) { m.Reduce = nil }},
	{"allreduce", "a reduce in each node to its leader; among the leaders, up to 8 KiB and 8 nodes, an exchange of the " +
		"nodes' partial results that each leader folds in node order, above that han's reduce to the first leader " +
		"and han's bcast from it; then a bcast in each node",
		func(m *coll.Module) { m.Allreduce = nil }},
	{"gather", "each node's leader gathers its node's blocks and sends them to the root in one message",
		func(m *coll.Module) { m.Gather = nil }},
	{"scatter", "the root sends each other node's blocks to its leader in one message, which hands them out",
		func(m *coll.Module) { m.Scatter = nil }},
	{"allgather", "each node's leader gathers its node's blocks, the leaders exchange them, and each leader " +
		"bcasts the whole result in its node",
		func(m *coll.Module) { m.Allgather = nil }},
}
