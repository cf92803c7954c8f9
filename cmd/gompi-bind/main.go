// Command gompi-bind is the binding shim that gompirun starts each bound
// rank through, when it finds gompi-bind beside itself: it pins itself to
// the rank's CPUs and execs the rank's program (package bindshim). It
// starts in a few milliseconds where gompirun, the fallback, takes tens.
// It is internal to gompirun; users never run it.
package main

import (
	"fmt"
	"os"

	"github.com/gompi/gompi/internal/bindshim"
)

func main() {
	cpus, ok := os.LookupEnv(bindshim.EnvVar)
	if !ok {
		fmt.Fprintf(os.Stderr, "gompi-bind: gompirun's binding shim, not to be run by hand (%s is not set)\n", bindshim.EnvVar)
		os.Exit(2)
	}
	err := bindshim.Run(cpus, os.Args[1:])
	fmt.Fprintln(os.Stderr, "gompi-bind:", err)
	os.Exit(127)
}
