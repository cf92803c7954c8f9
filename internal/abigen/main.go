// Command abigen writes gompi's C library glue from capi/mpi.abi, the
// description of the MPI-5.0 standard ABI: the header capi/include/mpi.h,
// the exported PMPI_ functions (capi/exports_gen.go), the weak MPI_ entry
// points (capi/weak_gen.c) and the list of implemented functions
// (docs/c-functions.md). It reads package capi's own Go files to learn
// which MPI functions have an implementation.
//
//	go run ./internal/abigen -dir .
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("dir", ".", "the module's root directory")
	flag.Parse()
	files, err := generate(*dir)
	if err == nil {
		err = write(*dir, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "abigen:", err)
		os.Exit(1)
	}
}
