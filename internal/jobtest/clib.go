package jobtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// CLibraryName is gompi's C library's file, by its soname; C programs
// link it as -lmpi_abi, through the libmpi_abi.so link beside it.
const CLibraryName = "libmpi_abi.so.1"

// CLibrary returns a directory holding gompi's C library and its
// libmpi_abi.so link, for C programs to link with -L and -rpath: lib/
// under BinEnv, where make test-programs builds it, or else dir/lib,
// where it builds capi (the package's path relative to the caller's
// directory).
func CLibrary(dir, capi string) (string, error) {
	if shared := os.Getenv(BinEnv); shared != "" {
		lib := filepath.Join(shared, "lib")
		if _, err := os.Stat(filepath.Join(lib, "libmpi_abi.so")); err != nil {
			return "", fmt.Errorf("prebuilt C library (%s=%s, which make test-programs fills): %w", BinEnv, shared, err)
		}
		return lib, nil
	}
	lib := filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-ldflags=-w -extldflags=-Wl,-soname,"+CLibraryName,
		"-o", filepath.Join(lib, CLibraryName), capi)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -buildmode=c-shared %s: %v\n%s", capi, err, b)
	}
	if err := os.Symlink(CLibraryName, filepath.Join(lib, "libmpi_abi.so")); err != nil {
		return "", err
	}
	return lib, nil
}
