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
// against gompi's standard ABI header (include, capi/include in the
// checkout) and linked with libmpi_abi in libDir, launched by
// gompirun. Building with gompi's compiler wrapper instead, once there is
// one, changes this function only: CC becomes the wrapper, without flags.
func GompiC(gompirun, include, libDir string) (*Library, error) {
	if _, err := os.Stat(filepath.Join(libDir, CLibrary)); err != nil {
		return nil, fmt.Errorf("gompi's C library: %w (make bench-capi builds it)", err)
	}
	abs, err := filepath.Abs(libDir)
	if err != nil {
		return nil, fmt.Errorf("gompi's C library: %w", err)
	}
	return &Library{Name: "gompi C", Dir: "gompi", CC: "cc",
		CFlags: []string{"-I", include},
		Libs:   []string{"-L" + abs, "-lmpi_abi", "-Wl,-rpath," + abs},
		Run:    gompirun, NP: "-np", Over: "--oversubscribe", Banner: "libmpi_abi",
	}, nil
}
