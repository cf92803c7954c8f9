// Command mca_prof_jsonl is an out-of-process profiling tool: each rank's
// MPI calls, one JSON object a line, in
// <prof_jsonl_dir>/gompi-jsonl-<job id>.<rank>.jsonl. Put it on
// mca_base_component_path and run a job with --mca prof jsonl.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gompi/gompi/frameworks/prof/profplugin"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

type jsonl struct {
	profplugin.Base
	dirParam params.Param[string]
	fnsParam params.Param[[]string]

	env  *mca.Env
	fns  []string // only these calls; all when empty
	path string
	file *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	n    int
}

// line is one record. Level is set for Pcontrol only.
type line struct {
	Fn    string `json:"fn"`
	Peer  int    `json:"peer"`
	Tag   int    `json:"tag"`
	Bytes int64  `json:"bytes"`
	Comm  string `json:"comm"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	Err   bool   `json:"error,omitempty"`
	Level *int   `json:"level,omitempty"`
}

func (j *jsonl) RegisterParams(r *params.Registrar) error {
	j.dirParam = r.String(params.Spec{Name: "dir", Default: ".", Level: 3,
		Help: "Directory of the files gompi-jsonl-<job id>.<rank>.jsonl, one JSON line per MPI call (made if missing)"})
	j.fnsParam = r.List(params.Spec{Name: "functions", Default: "", Level: 4,
		Help: "Record only these calls (Send,Recv,...); empty records every call"})
	return nil
}

func (j *jsonl) Open(_ context.Context, env *mca.Env) error {
	j.env, j.fns = env, j.fnsParam.Get(env.Params)
	return nil
}

func (j *jsonl) Start(_ context.Context, job profplugin.Job) error {
	dir, err := filepath.Abs(j.dirParam.Get(j.env.Params))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j.path = filepath.Join(dir, fmt.Sprintf("gompi-jsonl-%s.%d.jsonl", job.ID, job.Rank))
	if j.file, err = os.Create(j.path); err != nil {
		return err
	}
	j.w = bufio.NewWriterSize(j.file, 64<<10)
	j.enc = json.NewEncoder(j.w)
	j.env.Logger.Debug("writing events", "path", j.path)
	return nil
}

func (j *jsonl) write(e profplugin.Event, level *int) error {
	if len(j.fns) > 0 && !slices.Contains(j.fns, e.Fn) {
		return nil
	}
	j.n++
	return j.enc.Encode(line{Fn: e.Fn, Peer: e.Peer, Tag: e.Tag, Bytes: e.Bytes, Comm: e.Comm,
		Start: int64(e.Start), End: int64(e.End), Err: e.Err, Level: level})
}

func (j *jsonl) Events(_ context.Context, events []profplugin.Event) error {
	for _, e := range events {
		if err := j.write(e, nil); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonl) Pcontrol(_ context.Context, e profplugin.Event) error {
	return j.write(e, &e.Level)
}

func (j *jsonl) Finish(context.Context) (profplugin.Report, error) {
	if j.file == nil {
		return profplugin.Report{}, nil // never started
	}
	if err := j.w.Flush(); err != nil {
		return profplugin.Report{}, err
	}
	if err := j.file.Close(); err != nil {
		return profplugin.Report{}, err
	}
	j.env.Logger.Info("wrote events", "path", j.path, "lines", j.n)
	return profplugin.Report{Paths: []string{j.path}, Summary: fmt.Sprintf("%d calls in %s", j.n, j.path)}, nil
}

func main() {
	profplugin.Serve(profplugin.Info("jsonl", mca.Version{Major: 1}, 10, func() profplugin.Tool { return &jsonl{} }))
}
