package jobtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CLibraryName is gompi's C library's file, by its soname; C programs
// link it as -lmpi_abi, through the libmpi_abi.so link beside it.
const CLibraryName = "libmpi_abi.so.1"

// StartArchive is the archive beside the library that gompicc links into
// programs with -Wl,--wrap=main (capi/start/start.c).
const StartArchive = "libgompi_start.a"

// CLibrary returns a directory holding gompi's C library, its
// libmpi_abi.so link and the start archive, for C programs to link with -L
// and -rpath: lib/ under BinEnv, where make test-programs builds them, or
// else dir/lib, where it builds capi (the package's path relative to the
// caller's directory) with go and the archive with cc and ar.
func CLibrary(dir, capi string) (string, error) {
	if shared := os.Getenv(BinEnv); shared != "" {
		lib := filepath.Join(shared, "lib")
		for _, f := range []string{"libmpi_abi.so", StartArchive} {
			if _, err := os.Stat(filepath.Join(lib, f)); err != nil {
				return "", fmt.Errorf("prebuilt C library (%s=%s, which make test-programs fills): %w", BinEnv, shared, err)
			}
		}
		return lib, nil
	}
	lib := filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return "", err
	}
	obj := filepath.Join(lib, "start.o")
	for _, args := range [][]string{
		{"go", "build", "-buildmode=c-shared", "-ldflags=-w -extldflags=-Wl,-soname," + CLibraryName,
			"-o", filepath.Join(lib, CLibraryName), capi},
		{"cc", "-O2", "-fPIC", "-c", filepath.Join(capi, "start", "start.c"), "-o", obj},
		{"ar", "rcs", filepath.Join(lib, StartArchive), obj},
	} {
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	if err := os.Symlink(CLibraryName, filepath.Join(lib, "libmpi_abi.so")); err != nil {
		return "", err
	}
	return lib, nil
}
