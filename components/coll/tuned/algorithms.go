package tuned

import (
	"fmt"
	"strconv"
	"strings"
)

// algorithm is one way to run a collective: its number and name are what
// coll_tuned_<collective>_algorithm accepts.
type algorithm struct {
	num  int
	name string
	help string
}

// auto is the value of every algorithm parameter that leaves the choice to
// the built-in decision.
const auto = 0

// The algorithms of each collective, numbered from 1 in the order of the
// tables below.
const (
	barrierLinear = iota + 1
	barrierDissemination
	barrierRecursiveDoubling
)

const (
	bcastLinear = iota + 1
	bcastBinomial
	bcastPipeline
	bcastScatterAllgather
)

const (
	reduceLinear = iota + 1
	reduceBinomial
	reduceRabenseifner
)

const (
	allreduceReduceBcast = iota + 1
	allreduceRecursiveDoubling
	allreduceRabenseifner
	allreduceRing
)

const (
	allgatherRing = iota + 1
	allgatherBruck
	allgatherRecursiveDoubling
)

const (
	alltoallLinear = iota + 1
	alltoallPairwise
	alltoallBruck
)

const (
	gatherLinear = iota + 1
	gatherBinomial
)

const (
	scatterLinear = iota + 1
	scatterBinomial
)

// collective describes a collective that has an algorithm parameter.
type collective struct {
	name       string
	algorithms []algorithm // algorithms[i].num == i+1
}

// The tables are read-only.
var (
	barrierAlgs = collective{"barrier", []algorithm{
		{barrierLinear, "linear", "every rank reports to rank 0, which releases them all"},
		{barrierDissemination, "dissemination", "ceil(log2 n) rounds of a message to rank+2^k"},
		{barrierRecursiveDoubling, "recursive_doubling", "pairwise exchanges over a power of two, the extra ranks folded in"},
	}}
	bcastAlgs = collective{"bcast", []algorithm{
		{bcastLinear, "linear", "the root sends to every rank"},
		{bcastBinomial, "binomial", "binomial tree, log2 n rounds of the whole message"},
		{bcastPipeline, "pipeline", "chain from the root, the message cut into coll_tuned_bcast_segsize segments"},
		{bcastScatterAllgather, "scatter_allgather", "van de Geijn: binomial scatter of n blocks, then a ring allgather"},
	}}
	reduceAlgs = collective{"reduce", []algorithm{
		{reduceLinear, "linear", "the root receives from every rank and combines in rank order"},
		{reduceBinomial, "binomial", "binomial tree; operands combined in rank order when the operation is not commutative"},
		{reduceRabenseifner, "rabenseifner", "reduce-scatter by recursive halving, then a binomial gather to the root"},
	}}
	allreduceAlgs = collective{"allreduce", []algorithm{
		{allreduceReduceBcast, "reduce_bcast", "binomial reduce to rank 0, then binomial bcast"},
		{allreduceRecursiveDoubling, "recursive_doubling", "log2 n exchanges of the whole vector"},
		{allreduceRabenseifner, "rabenseifner", "reduce-scatter by recursive halving, then allgather by recursive doubling"},
		{allreduceRing, "ring", "reduce-scatter and allgather around a ring, in n chunks cut into coll_tuned_allreduce_segsize " +
			"segments; commutative operations only, others fall back to the decision"},
	}}
	allgatherAlgs = collective{"allgather", []algorithm{
		{allgatherRing, "ring", "n-1 steps around a ring"},
		{allgatherBruck, "bruck", "ceil(log2 n) steps of doubling blocks"},
		{allgatherRecursiveDoubling, "recursive_doubling", "log2 n pairwise exchanges; powers of two only, other sizes fall back to the decision"},
	}}
	alltoallAlgs = collective{"alltoall", []algorithm{
		{alltoallLinear, "linear", "every send and receive posted at once"},
		{alltoallPairwise, "pairwise", "n-1 steps, each with one partner"},
		{alltoallBruck, "bruck", "ceil(log2 n) steps of packed blocks, for small blocks"},
	}}
	gatherAlgs = collective{"gather", []algorithm{
		{gatherLinear, "linear", "the root receives from every rank"},
		{gatherBinomial, "binomial", "binomial tree, subtrees' blocks forwarded together"},
	}}
	scatterAlgs = collective{"scatter", []algorithm{
		{scatterLinear, "linear", "the root sends to every rank"},
		{scatterBinomial, "binomial", "binomial tree, subtrees' blocks forwarded together"},
	}}
)

// name returns an algorithm's name, "auto" for 0.
func (k collective) algName(num int) string {
	if num == auto {
		return "auto"
	}
	if num >= 1 && num <= len(k.algorithms) {
		return k.algorithms[num-1].name
	}
	return strconv.Itoa(num)
}

// parse reads a parameter value: "auto", "0", an algorithm's name or its number.
func (k collective) parse(s string) (int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "auto") {
		return auto, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n <= len(k.algorithms) {
			return n, nil
		}
	} else {
		for _, a := range k.algorithms {
			if strings.EqualFold(a.name, s) {
				return a.num, nil
			}
		}
	}
	return 0, fmt.Errorf("%q is not one of the %s algorithms: want %s", s, k.name, k.allowed())
}

// allowed lists the accepted values, for errors.
func (k collective) allowed() string {
	items := []string{"0 or auto"}
	for _, a := range k.algorithms {
		items = append(items, fmt.Sprintf("%d or %s", a.num, a.name))
	}
	return strings.Join(items, ", ")
}

// help is the parameter's help text: every algorithm's number, name and
// what it does.
func (k collective) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Algorithm of %s, by number or name: 0 or auto (the built-in decision by communicator "+
		"size, message size and whether the host's ranks outnumber its CPUs)", k.name)
	for _, a := range k.algorithms {
		fmt.Fprintf(&b, "; %d %s (%s)", a.num, a.name, a.help)
	}
	b.WriteString(".")
	return b.String()
}
