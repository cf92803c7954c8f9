// Package slurm is the plm component that starts gompirun's daemon on the
// nodes of the Slurm allocation gompirun runs in (salloc, sbatch): one
// job step per node, through srun, so that Slurm accounts for the daemon
// and its ranks, signals them and cleans up after them, where clusters
// often forbid ssh between nodes.
package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/gompi/gompi/frameworks/plm"
	"github.com/gompi/gompi/mca"
)

// info: above rsh, which a cluster's nodes may refuse.
var info = plm.Info("slurm", mca.Version{Major: 1}, 75, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the slurm plm component.
type Component struct {
	plm.BaseComponent
	srun string
}

// Query accepts inside an allocation (SLURM_JOB_ID set) with srun at hand.
func (c *Component) Query(_ context.Context, env *mca.Env) (int, error) {
	if os.Getenv("SLURM_JOB_ID") == "" {
		return 0, fmt.Errorf("%w: not inside a Slurm allocation (SLURM_JOB_ID is not set)", mca.ErrDeclined)
	}
	srun, err := exec.LookPath("srun")
	if err != nil {
		return 0, fmt.Errorf("%w: inside a Slurm allocation, but srun cannot be run: %v", mca.ErrDeclined, err)
	}
	c.srun = srun
	return env.Priority, nil
}

// Command runs argv on host as a job step of one task: its input and
// output pass through srun unbuffered, and it shares the node's CPUs
// with the other steps (the ranks it starts are not Slurm tasks).
func (c *Component) Command(host string, argv []string) (*exec.Cmd, error) {
	if host == "" || host[0] == '-' {
		return nil, fmt.Errorf("host %q: not a node name", host)
	}
	// No --cpu-bind=none: srun complains of it where Slurm binds nothing;
	// the daemon widens its own CPU mask instead (node.RunDaemon).
	args := []string{"--nodes=1", "--ntasks=1", "--nodelist=" + host, "--overlap", "--unbuffered",
		"--kill-on-bad-exit=1", "--quiet", "--mpi=none", "--job-name=gompirun-daemon"}
	return exec.Command(c.srun, append(args, argv...)...), nil
}
