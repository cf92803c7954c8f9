package trace

import (
	"math"

	"github.com/gompi/gompi/params"
)

// paramSet holds the handles of the component's parameters.
type paramSet struct {
	maxEvents params.Param[int]
	output    params.Param[string]
}

// config is the component's resolved configuration.
type config struct {
	maxEvents int    // events recorded per rank before the trace stops
	output    string // the merged file; "" for gompi-trace.<job>.json
}

func register(r *params.Registrar) paramSet {
	return paramSet{
		maxEvents: r.Int(params.Spec{
			Name: "max_events", Default: "1000000", Level: 4,
			Help: "Calls recorded per rank; when a rank reaches it, it stops recording and the trace says " +
				"\"trace truncated after N events\" on that rank. Trace viewers slow down past about a " +
				"million events in all.",
			Range: params.IntIn(1, math.MaxInt32),
		}),
		output: r.String(params.Spec{
			Name: "output", Default: "", Level: 2,
			Help: "Path of the trace file gompirun writes when the job ends, relative to its working " +
				"directory (a program started alone: its own); empty for gompi-trace.<job id>.json there.",
		}),
	}
}

func (p *paramSet) resolve(s *params.Snapshot) config {
	if s == nil {
		return config{maxEvents: defaultMaxEvents}
	}
	return config{maxEvents: p.maxEvents.Get(s), output: p.output.Get(s)}
}

const defaultMaxEvents = 1_000_000
