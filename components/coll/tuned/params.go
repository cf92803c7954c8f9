package tuned

import (
	"fmt"
	"strconv"

	"github.com/gompi/gompi/params"
)

// paramSet holds the handles of the component's parameters.
type paramSet struct {
	barrier, bcast, reduce, allreduce    params.Param[string]
	allgather, alltoall, gather, scatter params.Param[string]
	bcastSegsize, allreduceSegsize       params.Param[int64]
}

// config is what a module runs with: an algorithm per collective (auto for
// the built-in decision) and the segment sizes.
type config struct {
	barrier, bcast, reduce, allreduce    int
	allgather, alltoall, gather, scatter int
	// bcastSegsize is the pipelined bcast's segment; allreduceSegsize cuts
	// each chunk of the ring allreduce so that reducing one segment overlaps
	// receiving the next (0: one message per chunk).
	bcastSegsize, allreduceSegsize int
}

// Segment size defaults and limit.
const (
	defaultBcastSegsize     = 32 << 10
	defaultAllreduceSegsize = 256 << 10
	maxSegsize              = 1 << 30
)

func register(r *params.Registrar) paramSet {
	alg := func(k collective) params.Param[string] {
		return r.String(params.Spec{
			Name: k.name + "_algorithm", Default: "auto", Level: 5,
			Help:    k.help(),
			Accepts: k.allowed(),
			Validate: func(v any) error {
				_, err := k.parse(v.(string))
				return err
			},
		})
	}
	return paramSet{
		barrier:   alg(barrierAlgs),
		bcast:     alg(bcastAlgs),
		reduce:    alg(reduceAlgs),
		allreduce: alg(allreduceAlgs),
		allgather: alg(allgatherAlgs),
		alltoall:  alg(alltoallAlgs),
		gather:    alg(gatherAlgs),
		scatter:   alg(scatterAlgs),
		bcastSegsize: r.Size(params.Spec{
			Name: "bcast_segsize", Default: strconv.Itoa(defaultBcastSegsize), Level: 5,
			Help: "Segment size in bytes of the pipelined bcast: each rank forwards a segment down the chain " +
				"while it receives the next. Must be at least 1.",
			Range: params.SizeIn(1, maxSegsize),
		}),
		allreduceSegsize: r.Size(params.Spec{
			Name: "allreduce_segsize", Default: strconv.Itoa(defaultAllreduceSegsize), Level: 5,
			Help: "Segment size in bytes within each chunk of the ring allreduce, rounded down to whole elements: " +
				"a rank reduces one segment while the next arrives. 0 sends each chunk as one message.",
			Range: params.SizeIn(0, maxSegsize),
		}),
	}
}

// resolve reads the parameters from s. Their validation already ran, so an
// error here means a handle and its definition disagree.
func (p *paramSet) resolve(s *params.Snapshot) (config, error) {
	cfg := config{
		bcastSegsize:     int(p.bcastSegsize.Get(s)),
		allreduceSegsize: int(p.allreduceSegsize.Get(s)),
	}
	for _, f := range []struct {
		dst   *int
		param params.Param[string]
		k     collective
	}{
		{&cfg.barrier, p.barrier, barrierAlgs},
		{&cfg.bcast, p.bcast, bcastAlgs},
		{&cfg.reduce, p.reduce, reduceAlgs},
		{&cfg.allreduce, p.allreduce, allreduceAlgs},
		{&cfg.allgather, p.allgather, allgatherAlgs},
		{&cfg.alltoall, p.alltoall, alltoallAlgs},
		{&cfg.gather, p.gather, gatherAlgs},
		{&cfg.scatter, p.scatter, scatterAlgs},
	} {
		n, err := f.k.parse(f.param.Get(s))
		if err != nil {
			return config{}, fmt.Errorf("%s: %w", f.param.Name(), err)
		}
		*f.dst = n
	}
	return cfg, nil
}
