package compare

import (
	"fmt"
	"os"
	"path/filepath"
)

// CLibrary is the name a program links gompi's C library (capi, built
// as libmpi_abi.so.1) by: -lmpi_abi finds it.
const CLibrary = "libmpi_abi.so"

// GompiC is gompi as a C library: bench/c's programs compiled unmodified
// with gompicc, gompi's compiler wrapper, against the standard ABI header
// and libmpi_abi of its prefix (the directory above its bin/), launched
// by gompirun.
func GompiC(gompirun, gompicc string) (*Library, error) {
	prefix := filepath.Dir(filepath.Dir(gompicc))
	for _, f := range []string{gompicc, filepath.Join(prefix, "lib", CLibrary), filepath.Join(prefix, "include", "mpi.h")} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("gompi's C library: %w (make build makes it)", err)
		}
	}
	return &Library{Name: "gompi C", Dir: "gompi", CC: gompicc,
		Run: gompirun, NP: "-np", Over: "--oversubscribe", Banner: "libmpi_abi",
	}, nil
}
