// timing.w times every call and prints, at Finalize, how often this rank
// made each call and the time it spent in it: wrappergen's timing example,
// a variable declared per call with vardecl and one wrapper for all calls.

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// timesMu{{fileno}} guards the totals: calls may come from many goroutines.
var (
	timesMu{{fileno}} sync.Mutex
	times{{fileno}}   = map[string]time.Duration{}
	counts{{fileno}}  = map[string]int{}
)

// reportTimes{{fileno}} prints this rank's totals, by call name.
func reportTimes{{fileno}}(rank int) {
	timesMu{{fileno}}.Lock()
	defer timesMu{{fileno}}.Unlock()
	var b strings.Builder
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range times{{fileno}} {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "timing rank %d: %s calls=%d time=%v\n", rank, name, counts{{fileno}}[name], times{{fileno}}[name])
	}
	os.Stderr.WriteString(b.String())
}

{{fnall this_fn Wtime Wtick Finalize}}
	{{vardecl time.Time start}}
	{{start}} = time.Now()
{{callfn}}
	timesMu{{fileno}}.Lock()
	times{{fileno}}["{{this_fn}}"] += time.Since({{start}})
	counts{{fileno}}["{{this_fn}}"]++
	timesMu{{fileno}}.Unlock()
{{endfnall}}

{{fn this_fn Finalize}}
	{{vardecl int rank}}
	{{rank}}, _ = layer.Next.CommRank(layer.Next.CommWorld())
	reportTimes{{fileno}}({{rank}})
{{callfn}}
{{endfn}}
