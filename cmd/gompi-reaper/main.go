// Command gompi-reaper is the watchdog gompirun starts on every host of a
// job (see package reaper); it is not run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/gompi/gompi/internal/reaper"
)

func main() {
	spec, ok := os.LookupEnv(reaper.EnvVar)
	if !ok {
		fmt.Fprintf(os.Stderr, "gompi-reaper: %s is not set: gompirun starts this program on every host of a job to clean up after it; it is not run by hand\n", reaper.EnvVar)
		os.Exit(2)
	}
	if err := reaper.Run(spec); err != nil {
		fmt.Fprintln(os.Stderr, "gompi-reaper:", err)
		os.Exit(1)
	}
}
