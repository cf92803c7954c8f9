// Package compare runs gompi-bench and its C twins in bench/c, built against
// Open MPI, MPICH and gompi's own C library, on this machine, alternately and several times, and
// reports the medians side by side: as text, as Markdown (a summary in
// docs/performance.md, every plan's table in docs/performance-tables.md)
// and as SVG plots. It also has the three measured across simulated hosts
// (MeasureAcross) and reports that in a subsection of the summary.
// cmd/gompi-bench-compare drives it.
package compare

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Library is an MPI library the C programs are built against. Debian
// installs Open MPI and MPICH side by side; their suffixed commands
// (mpicc.openmpi, mpiexec.mpich) reach each whichever is the default.
type Library struct {
	Name    string   // "Open MPI"
	Dir     string   // its subdirectory of the build directory
	CC, Run string   // compiler (a wrapper such as mpicc) and launcher
	CFlags  []string // CC's flags before the source, beyond -O2 and -o
	Libs    []string // CC's flags after the source: what to link
	Banner  string   // what MPI_Get_library_version says, which the C programs' title carries
	// ShowsMCA: the launcher passes --mca settings to the ranks as
	// OMPI_MCA_*, the variables bench/c's btl line prints.
	ShowsMCA bool
	NP       string   // the launcher's rank-count flag
	Over     string   // the launcher's flag for more ranks than cores, if it needs one
	Packages []string // Debian's packages that install it
	Version  string   // the first line of Run --version that names a version
}

// OpenMPI is the reference, as Debian 12 packages it.
func OpenMPI() *Library {
	return &Library{Name: "Open MPI", Dir: "openmpi", CC: "mpicc.openmpi", Run: "mpirun.openmpi", NP: "-np", Over: "--oversubscribe",
		Banner: "Open MPI", ShowsMCA: true, Packages: []string{"openmpi-bin", "libopenmpi-dev"}}
}

// MPICH is the second reference, where it installs beside Open MPI.
func MPICH() *Library {
	return &Library{Name: "MPICH", Dir: "mpich", CC: "mpicc.mpich", Run: "mpiexec.mpich", NP: "-n",
		Banner: "MPICH", Packages: []string{"mpich", "libmpich-dev"}}
}

// Installer installs missing libraries from Debian's packages, running
// apt-get update once.
type Installer struct {
	Allowed bool      // false: report what is missing and install nothing
	Log     io.Writer // what is being installed
	updated bool
}

// Ensure finds the library's commands, installing its packages if they
// are missing, and reads its version.
func (in *Installer) Ensure(ctx context.Context, lib *Library) error {
	if missing := lib.missing(); missing != "" {
		if err := in.install(ctx, lib, missing); err != nil {
			return err
		}
		if missing := lib.missing(); missing != "" {
			return fmt.Errorf("%s: %s not found after apt-get install %s", lib.Name, missing, strings.Join(lib.Packages, " "))
		}
	}
	out, err := exec.CommandContext(ctx, lib.Run, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %s --version: %w\n%s", lib.Name, lib.Run, err, out)
	}
	lib.Version = versionLine(string(out))
	return nil
}

func (lib *Library) missing() string {
	var names []string
	for _, c := range []string{lib.CC, lib.Run} {
		if _, err := exec.LookPath(c); err != nil {
			names = append(names, c)
		}
	}
	return strings.Join(names, " and ")
}

func (in *Installer) install(ctx context.Context, lib *Library, missing string) error {
	pkgs := strings.Join(lib.Packages, " ")
	switch {
	case !in.Allowed:
		return fmt.Errorf("%s: %s not found; install it with apt-get install -y %s (or let the comparison install it)", lib.Name, missing, pkgs)
	case os.Geteuid() != 0:
		return fmt.Errorf("%s: %s not found, and installing needs root: sudo apt-get install -y %s", lib.Name, missing, pkgs)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("%s: %s not found, and there is no apt-get to install %s with", lib.Name, missing, pkgs)
	}
	fmt.Fprintf(in.Log, "%s: %s not found: installing %s from Debian's packages\n", lib.Name, missing, pkgs)
	if !in.updated {
		if err := in.apt(ctx, "update", "-q"); err != nil {
			return fmt.Errorf("%s: apt-get update: %w", lib.Name, err)
		}
		in.updated = true
	}
	if err := in.apt(ctx, append([]string{"install", "-y", "-q"}, lib.Packages...)...); err != nil {
		return fmt.Errorf("%s: apt-get install %s: %w", lib.Name, pkgs, err)
	}
	fmt.Fprintf(in.Log, "%s: installed %s\n", lib.Name, pkgs)
	return nil
}

func (in *Installer) apt(ctx context.Context, args ...string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.Stdout, cmd.Stderr = &out, &out // shown only when it fails
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, tail(out.String(), 1500))
	}
	return nil
}

// Describe names the library and what its launcher says of its version.
func (lib *Library) Describe() string {
	return fmt.Sprintf("%s (`%s --version`: %s)", lib.Name, lib.Run, lib.Version)
}

// versionLine picks the line of a --version output that names the
// version: "mpirun.openmpi (OpenRTE) 4.1.4", or MPICH's "Version: 4.0.2".
func versionLine(out string) string {
	for line := range strings.Lines(out) {
		line = strings.Join(strings.Fields(line), " ")
		if strings.HasPrefix(line, "Version:") || strings.Contains(line, "(Open MPI)") || strings.Contains(line, "(OpenRTE)") {
			return line
		}
	}
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
