package jobtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// StartArchive is the archive beside the library that gompicc links into
// programs with -Wl,--wrap=main (capi/start/start.c).
const StartArchive = "libgompi_start.a"

// CLibrary returns a directory holding gompi's C library, its
// libmpi_abi.so link and the start archive, for C programs to link with -L
// and -rpath: lib/ under BinEnv, where make test-programs builds them, or
// else dir/lib, where the Makefile's c-library target builds them from the
// repository at root (relative to the caller's directory), so that the
// library is built one way only.
func CLibrary(dir, root string) (string, error) {
	if shared := os.Getenv(BinEnv); shared != "" {
		lib := filepath.Join(shared, "lib")
		for _, f := range []string{"libmpi_abi.so", StartArchive} {
			if _, err := os.Stat(filepath.Join(lib, f)); err != nil {
				return "", fmt.Errorf("prebuilt C library (%s=%s, which make test-programs fills): %w", BinEnv, shared, err)
			}
		}
		return lib, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	lib := filepath.Join(dir, "lib")
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "c-library",
		"LIB="+lib, "INCLUDE="+filepath.Join(dir, "include"))
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	if _, err := os.Stat(filepath.Join(lib, StartArchive)); err != nil {
		return "", fmt.Errorf("%s built no C library: %w\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	return lib, nil
}
