// Package singleton is the ess component of a process that no launcher
// started: rank 0 of a job of one, with its exchange kept in memory, as
// MPI lets a program run on its own.
package singleton

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/rte"
	"github.com/gompi/gompi/mca"
)

// info: the last resort, below every launcher's component.
var info = ess.Info("singleton", mca.Version{Major: 1}, 0, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the singleton ess component. It accepts every process; the
// launchers' components rank above it.
type Component struct {
	ess.BaseComponent
}

// Connect makes the singleton's runtime, unless a launcher started this
// process as one of a job through an interface that no component of the
// program speaks: as many singletons as the job has ranks is never what
// its user asked for.
func (c *Component) Connect(ctx context.Context) (ess.Runtime, error) {
	if err := unjoined(os.Getenv); err != nil {
		return nil, err
	}
	return rte.Singleton(ctx)
}

// unjoined says which launcher started the process as part of a job that
// the singleton cannot join, or returns nil.
func unjoined(getenv func(string) string) error {
	if ns := getenv("PMIX_NAMESPACE"); ns != "" {
		return fmt.Errorf("a PMIx server started this process (PMIX_NAMESPACE %s: srun --mpi=pmix, "+
			"Open MPI's mpirun or prterun) and no ess component of the program speaks PMIx: "+
			"build it with -tags pmix, or start it with gompirun, srun --mpi=pmi2 or mpiexec.mpich", ns)
	}
	if n, err := strconv.Atoi(getenv("SLURM_STEP_NUM_TASKS")); err == nil && n > 1 {
		return fmt.Errorf("srun started this process as task %s of %d with no PMI to join them "+
			"(srun --mpi=none): start it with srun --mpi=pmi2, or --mpi=pmix with a -tags pmix build",
			getenv("SLURM_PROCID"), n)
	}
	return nil
}
