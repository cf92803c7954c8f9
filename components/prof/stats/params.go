package stats

import (
	"errors"

	"github.com/gompi/gompi/params"
)

// paramSet holds the handles of the component's parameters.
type paramSet struct {
	output params.Param[string]
	top    params.Param[int]
	svg    params.Param[bool]
}

// config is the component's resolved configuration.
type config struct {
	output string // path prefix of the report files
	top    int    // call sites shown in each top list
	svg    bool   // also draw the matrices as an SVG heatmap
}

func register(r *params.Registrar) paramSet {
	return paramSet{
		output: r.String(params.Spec{
			Name: "output", Default: "gompi-stats", Level: 2,
			Help: "Path prefix of the report: gompirun writes <prefix>.<job id>.txt and .json (and .svg) " +
				"when the job ends, relative to its working directory unless the prefix is absolute " +
				"(a program started alone: relative to its own).",
			Accepts: "a path prefix, not empty",
			Validate: func(v any) error {
				if v.(string) == "" {
					return errors.New("must not be empty")
				}
				return nil
			},
		}),
		top: r.Int(params.Spec{
			Name: "top", Default: "20", Level: 2,
			Help:  "Call sites shown in the text report's lists by time and by bytes (the JSON holds them all).",
			Range: params.IntIn(1, 1<<20),
		}),
		svg: r.Bool(params.Spec{
			Name: "svg", Default: "true", Level: 2,
			Help: "Also draw the sender-by-receiver matrices, point-to-point and collective, as an SVG heatmap.",
		}),
	}
}

func (p *paramSet) resolve(s *params.Snapshot) config {
	return config{output: p.output.Get(s), top: p.top.Get(s), svg: p.svg.Get(s)}
}
