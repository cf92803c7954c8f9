// Command gompi-daemon starts and watches one host's ranks of a job that
// gompirun runs from another host, which starts it there through its
// launch agent (ssh, srun, or what plm_rsh_agent names) and speaks to it
// over its standard input and output; see package node. It is not run by
// hand.
package main

import (
	"fmt"
	"os"

	"github.com/gompi/gompi/internal/node"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "gompi-daemon: unexpected argument %q: it takes none; gompirun starts it on the other hosts of a job\n", os.Args[1])
		os.Exit(2)
	}
	os.Exit(node.Main())
}
