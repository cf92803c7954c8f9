// Command gompicc compiles and links C programs against gompi's C library,
// libmpi_abi (the MPI-5.0 standard ABI), in the manner of Open MPI's and
// MPICH's mpicc: it runs the C compiler (cc, or $GOMPI_CC) with the user's
// arguments, untouched and in their order, followed by -I<prefix>/include
// and, when the command links, -Wl,--wrap=main -Wl,-u,main
// <prefix>/lib/libgompi_start.a (where the installation has it: the
// program's main then runs as a call from the library, capi/start/start.c)
// -L<prefix>/lib -lmpi_abi -Wl,-rpath,<prefix>/lib. Installed or linked
// under the name gompicxx it compiles C++ with c++ (or $GOMPI_CXX).
//
// The prefix is the parent of the directory holding the executable
// (symlinks resolved), so bin/gompicc of a checkout after make build uses
// its include/ and lib/; GOMPI_PREFIX overrides it. --showme (or MPICH's
// -show) prints the command instead of running it; --showme:help lists
// the other forms.
// The exit status is the compiler's: gompicc replaces itself with it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/gompi/gompi/params"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run returns only when it does not start the compiler: after --showme
// or an error.
func run(argv []string, stdout, stderr io.Writer) int {
	name := filepath.Base(argv[0])
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	w, err := newWrapper(name, os.Getenv)
	if err != nil {
		return fail(err)
	}
	req, err := parseArgs(argv[1:])
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\nType '%s --showme:help' for usage.\n", name, err, name)
		return 1
	}
	if req.show {
		fmt.Fprintln(stdout, w.showme(req))
		return 0
	}
	if err := w.check(req.args); err != nil {
		return fail(err)
	}
	return fail(execCompiler(w, w.command(req.args)))
}

// execCompiler replaces this process with the compiler, so that its exit
// status and signals are the caller's to see. It returns only on failure.
func execCompiler(w *wrapper, cmd []string) error {
	path, err := exec.LookPath(cmd[0])
	if err != nil {
		return fmt.Errorf("the %s compiler %q: %w (install it, or name another in %s)",
			w.lang.name, cmd[0], errors.Unwrap(err), w.lang.envVar)
	}
	err = syscall.Exec(path, cmd, os.Environ())
	return fmt.Errorf("running %s: %w", path, err)
}

// installPrefix is GOMPI_PREFIX, else the installation this executable
// belongs to; from says which, for the error messages.
func installPrefix(getenv func(string) string) (prefix, from string, err error) {
	if p := getenv(params.PrefixEnvVar); p != "" {
		from = params.PrefixEnvVar
		prefix = p
	} else {
		from = "this wrapper's own path, <prefix>/bin/<wrapper>"
		exe, err := os.Executable()
		if err != nil {
			return "", "", fmt.Errorf("finding the installation prefix: %w (set %s)", err, params.PrefixEnvVar)
		}
		// A symlinked wrapper (/usr/local/bin/gompicc -> /opt/gompi/bin/gompicc)
		// belongs to the installation it links to.
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		prefix = filepath.Dir(filepath.Dir(exe))
	}
	// The rpath must not depend on the directory the compiler runs in.
	abs, err := filepath.Abs(prefix)
	if err != nil {
		return "", "", fmt.Errorf("installation prefix %q (from %s): %w", prefix, from, err)
	}
	return abs, from, nil
}
