package multihost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/jobtest"
	"github.com/gompi/gompi/test/cluster"
)

// pmix is hostcheck built with the pmix ess component, once for the tests
// that start it through a PMIx server, or why it could not be.
var pmix struct {
	once sync.Once
	prog string
	err  error
}

// pmixHostcheck returns the pmix build of hostcheck, or skips.
func pmixHostcheck(t *testing.T) string {
	t.Helper()
	pmix.once.Do(func() {
		var bins map[string]string
		bins, pmix.err = jobtest.BuildTags(filepath.Dir(hostcheck), "pmix", map[string]string{"hostcheck-pmix": "./testdata/hostcheck"})
		pmix.prog = bins["hostcheck-pmix"]
	})
	if pmix.err != nil {
		t.Skipf("no pmix build here (Debian's libpmix-dev and cgo): %v", pmix.err)
	}
	return pmix.prog
}

// TestOpenMPILauncher: Open MPI's mpirun on h1 starts 2 ranks of a gompi
// program built with the pmix tag on each of 3 hosts, through the
// cluster's ssh stand-in; its daemons' PMIx servers give the ranks their
// identity and layout. Built without the tag, the program refuses to run
// as singletons and says how to build it.
func TestOpenMPILauncher(t *testing.T) {
	t.Parallel()
	mpirun, err := exec.LookPath("mpirun.openmpi")
	if err != nil {
		t.Skip("Open MPI's mpirun.openmpi is not installed (Debian package openmpi-bin)")
	}
	prog := pmixHostcheck(t)
	c := cluster.Up(t, 3, cluster.Options{})
	run := func(prog string) ([]byte, error) {
		cmd := c.Command("h1", mpirun, "--host", "h1:2,h2:2,h3:2", "-np", "6", "--map-by", "slot",
			"--mca", "plm_rsh_agent", c.Agent(), "--bind-to", "none", prog)
		cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
		return cmd.CombinedOutput()
	}
	out, err := run(prog)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRanks(t, string(out), 6, func(r int) string { return fmt.Sprintf("h%d", r/2+1) })
	if regexp.MustCompile(`(?m)^rank \d on vm`).Match(out) {
		t.Errorf("a rank ran outside the cluster\n%s", out)
	}
	out, err = run(hostcheck)
	if err == nil || !strings.Contains(string(out), "no ess component of the program speaks PMIx: build it with -tags pmix") {
		t.Errorf("a build without pmix under mpirun: %v; want its ranks to fail, saying why\n%s", err, out)
	}
	checkClean(t, c)
}
