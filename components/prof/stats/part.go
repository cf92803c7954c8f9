package stats

// rankPart is what one rank submits at Finalize, as JSON, for gompirun
// to merge (see merge): its phases with every time already in
// nanoseconds, and what only the ranks know, the world's size and the
// report's parameters as this rank resolved them.
type rankPart struct {
	Rank   int         `json:"rank"`
	Size   int         `json:"size"`
	Host   string      `json:"host"`
	Config partConfig  `json:"config"`
	Phases []phasePart `json:"phases"`
}

// partConfig is config, in a part.
type partConfig struct {
	Output string `json:"output"`
	Top    int    `json:"top"`
	SVG    bool   `json:"svg"`
}

type phasePart struct {
	EndedBy string     `json:"ended_by"`
	AppNs   int64      `json:"app_ns"`
	MPINs   int64      `json:"mpi_ns"`
	Funcs   []callPart `json:"funcs"`
	Sites   []sitePart `json:"sites"`
	P2P     row        `json:"p2p"`
	Coll    row        `json:"coll"`
	Comms   []commPart `json:"comms"`
}

// callPart is a counter's tally in nanoseconds.
type callPart struct {
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
	Ns    int64  `json:"ns"`
	MinNs int64  `json:"min_ns"`
	MaxNs int64  `json:"max_ns"`
	Bytes int64  `json:"bytes"`
}

// commPart is a communicator's counts in a rank's phase: Name is the
// communicator's; Freed says it was freed during the phase.
type commPart struct {
	callPart
	Freed bool `json:"freed,omitempty"`
}

type sitePart struct {
	callPart
	File   string `json:"file"`
	Line   int    `json:"line"`
	Caller string `json:"caller"`
}

// row is one sender's messages and bytes to each world rank.
type row struct {
	Msgs  []int64 `json:"msgs"`
	Bytes []int64 `json:"bytes"`
}

// part converts a rank's phases to its part of the report.
func part(rank, size int, host string, cfg config, phases []phase, rate float64) rankPart {
	ns := func(t int64) int64 { return int64(float64(t) * rate) }
	conv := func(name string, t tally) callPart {
		return callPart{Name: name, Calls: t.Calls, Ns: ns(t.Ticks), MinNs: ns(t.Min), MaxNs: ns(t.Max), Bytes: t.Bytes}
	}
	rp := rankPart{Rank: rank, Size: size, Host: host, Config: partConfig{Output: cfg.output, Top: cfg.top, SVG: cfg.svg}}
	for _, ph := range phases {
		pp := phasePart{EndedBy: ph.endedBy, AppNs: int64(ph.app), MPINs: ns(ph.mpiTicks)}
		for f, t := range ph.fns {
			if t.Calls > 0 {
				pp.Funcs = append(pp.Funcs, conv(fn(f).String(), t))
			}
		}
		for _, s := range ph.sites {
			pp.Sites = append(pp.Sites, sitePart{callPart: conv(s.id.f.String(), s.t), File: s.id.file, Line: s.id.line, Caller: s.fun})
		}
		for _, c := range ph.comms {
			pp.Comms = append(pp.Comms, commPart{callPart: conv(c.name, c.t), Freed: c.freed})
		}
		pp.P2P, pp.Coll = rowOf(ph.p2p), rowOf(ph.coll)
		rp.Phases = append(rp.Phases, pp)
	}
	return rp
}

func rowOf(ts []peerTally) row {
	r := row{Msgs: make([]int64, len(ts)), Bytes: make([]int64, len(ts))}
	for i, t := range ts {
		r.Msgs[i], r.Bytes[i] = t.msgs, t.bytes
	}
	return r
}
