// every.w records every call of pmpi.API that reaches the layer, in
// order, for test/prof: the prof component "every" (every.go, which
// go test ./test/prof -update writes from this file). Pcontrol(0) stops
// its counting and Pcontrol(1) resumes it, as a measuring tool's would:
// a call made while it is stopped is recorded, marked "(stopped)".

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

var (
	mu{{fileno}}      sync.Mutex
	journal{{fileno}} []string
	stopped{{fileno}} atomic.Bool
)

// record notes a call, marked if the counting is stopped.
func record{{fileno}}(call string) {
	if stopped{{fileno}}.Load() {
		call += " (stopped)"
	}
	add{{fileno}}(call)
}

func add{{fileno}}(call string) {
	mu{{fileno}}.Lock()
	journal{{fileno}} = append(journal{{fileno}}, call)
	mu{{fileno}}.Unlock()
}

// Len is how many calls the layer has seen.
func Len() int {
	mu{{fileno}}.Lock()
	defer mu{{fileno}}.Unlock()
	return len(journal{{fileno}})
}

// Since returns the calls seen after the first n, in order.
func Since(n int) []string {
	mu{{fileno}}.Lock()
	defer mu{{fileno}}.Unlock()
	return slices.Clone(journal{{fileno}}[n:])
}

{{fnall fn_name Pcontrol}}
	record{{fileno}}("{{fn_name}}")
{{callfn}}
{{endfnall}}

{{fn fn_name Pcontrol}}
	add{{fileno}}(fmt.Sprintf("Pcontrol(%d)", {{level}}))
	switch {{level}} {
	case 0:
		stopped{{fileno}}.Store(true)
	case 1:
		stopped{{fileno}}.Store(false)
	}
{{callfn}}
{{endfn}}
