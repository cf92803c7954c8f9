// Package pmi is the ess component of processes that a PMI launcher
// started without gompirun: MPICH's Hydra (mpiexec.mpich) over PMI-1, or
// Slurm's srun --mpi=pmi2 over PMI-2. The rank, the size and the node
// layout come from the launcher, and the exchange is its key-value space.
package pmi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gompi/gompi/frameworks/ess"
	pmiwire "github.com/gompi/gompi/internal/pmi"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info: below gompirun's component (its variables are set only by
// gompirun, PMI's by every PMI launcher, a gompirun among them one day),
// above the singleton.
var info = ess.Info("pmi", mca.Version{Major: 1}, 50, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the pmi ess component.
type Component struct {
	ess.BaseComponent
	versionParam params.Param[string]
	client       *pmiwire.Client // opened by Query, handed to Connect
	connected    bool            // Connect made the runtime, which now owns the client
}

// RegisterParams registers ess_pmi_version.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.versionParam = r.Enum(params.Spec{
		Name: "version", Default: "auto", Level: 5,
		Help: "The PMI wire protocol to speak with the launcher.",
		Values: []params.EnumValue{
			{Name: "auto", Help: "PMI-2 where Slurm's pmi2 plugin started the process (PMI_JOBID is set), else PMI-1"},
			{Name: "1", Help: "PMI-1, MPICH's simple protocol (Hydra)"},
			{Name: "2", Help: "PMI-2 (Slurm's pmi2 plugin; Hydra serves it too)"},
		},
	})
	return nil
}

// Query connects to the launcher if one started the process. A launcher
// environment that is only partly there stops Init.
func (c *Component) Query(_ context.Context, env *mca.Env) (int, error) {
	version := pmiwire.Auto
	switch c.versionParam.Get(env.Params) {
	case "1":
		version = pmiwire.V1
	case "2":
		version = pmiwire.V2
	}
	client, err := pmiwire.Open(os.Getenv, version)
	switch {
	case errors.Is(err, pmiwire.ErrNotLaunched):
		return 0, ess.ErrNotLaunched
	case err != nil:
		return 0, mca.Fatal(err)
	}
	c.client = client
	return env.Priority, nil
}

// Close ends the connection of a component that was queried but not
// selected.
func (c *Component) Close() error {
	if c.client != nil && !c.connected {
		return c.client.Finalize()
	}
	return nil
}

// Connect joins the job: it reads the layout, and rank 0 deals the job's
// secret through the key-value space.
func (c *Component) Connect(context.Context) (ess.Runtime, error) {
	if c.client == nil {
		return nil, errors.New("not queried: no connection to the launcher")
	}
	c.connected = true
	rt, err := newRuntime(c.client)
	if err != nil {
		_ = c.client.Abort(1, err.Error())
		return nil, err
	}
	return rt, nil
}

// runtime is a rank's job through PMI.
type runtime struct {
	client *pmiwire.Client
	job    ess.Job
}

const secretKey = "gompi-secret"

func newRuntime(c *pmiwire.Client) (*runtime, error) {
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(c.JobID()))
	rt := &runtime{client: c, job: ess.Job{
		Rank: c.Rank(), Size: c.Size(), AppNum: max(c.AppNum(), 0),
		JobID:    hex.EncodeToString(sum[:4]), // a name safe in paths, alike on every rank
		Hostname: host,
	}}
	if rt.job.Rank == 0 {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("making the job secret: %w", err)
		}
		if err := c.Put(secretKey, secret); err != nil {
			return nil, err
		}
	}
	// The layout: the launcher's, or else the ranks' host names.
	node, nodeErr := c.Node()
	if nodeErr != nil {
		if err := c.Put(rankKey(rt.job.Rank, "host"), []byte(host)); err != nil {
			return nil, err
		}
	}
	if err := c.Fence(); err != nil {
		return nil, err
	}
	secret, err := c.Get(secretKey)
	if err != nil {
		return nil, fmt.Errorf("the job secret from rank 0: %w", err)
	}
	rt.job.Secret = secret
	if nodeErr == nil {
		rt.job.LocalRank, rt.job.LocalSize = node.LocalRank, len(node.Ranks)
		return rt, nil
	}
	for r := range rt.job.Size {
		h, err := c.Get(rankKey(r, "host"))
		if err != nil {
			return nil, fmt.Errorf("the host of rank %d (the launcher gave no layout: %v): %w", r, nodeErr, err)
		}
		if string(h) == host {
			if r == rt.job.Rank {
				rt.job.LocalRank = rt.job.LocalSize
			}
			rt.job.LocalSize++
		}
	}
	return rt, nil
}

// rankKey is rank's key in the launcher's key-value space, which is one
// for the whole job and allows letters, digits, '_' and '-' only.
func rankKey(rank int, key string) string {
	var b strings.Builder
	b.WriteString("r" + strconv.Itoa(rank) + "-")
	for _, ch := range []byte(key) {
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '-':
			b.WriteByte(ch)
		default:
			fmt.Fprintf(&b, "_%02x", ch)
		}
	}
	return b.String()
}

func (rt *runtime) Job() ess.Job {
	j := rt.job
	j.Secret = append([]byte(nil), rt.job.Secret...)
	return j
}

func (rt *runtime) Put(_ context.Context, key string, value []byte) error {
	return rt.client.Put(rankKey(rt.job.Rank, key), value)
}

func (rt *runtime) Fence(context.Context) error { return rt.client.Fence() }

func (rt *runtime) Get(_ context.Context, rank int, key string) ([]byte, error) {
	if rank < 0 || rank >= rt.job.Size {
		return nil, fmt.Errorf("rank %d is out of range 0..%d", rank, rt.job.Size-1)
	}
	v, err := rt.client.Get(rankKey(rank, key))
	if err != nil {
		return nil, fmt.Errorf("key %q of rank %d: %w", key, rank, err)
	}
	return v, nil
}

// Abort prints why, since a PMI launcher does not (PMI-1 carries no
// message), then asks the launcher to end the job.
func (rt *runtime) Abort(_ context.Context, code int, msg string, _ []int) error {
	fmt.Fprintf(os.Stderr, "gompi: rank %d: %s\n", rt.job.Rank, msg)
	return rt.client.Abort(code, msg)
}

func (rt *runtime) Finalize(context.Context) error { return rt.client.Finalize() }

// Close does nothing: Finalize (or Abort) ends the connection.
func (rt *runtime) Close() error { return nil }
