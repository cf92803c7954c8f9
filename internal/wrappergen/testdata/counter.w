// counter.w counts each rank's calls of every function and prints the
// counts at Finalize: wrappergen's per-function counter, with one counter
// per function declared at file level by forallfn.

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// One counter per call of pmpi.API.
var (
{{forallfn fn_name}}	calls{{fn_name}}{{fileno}} atomic.Int64
{{endforallfn}})

// reportCounts{{fileno}} prints this rank's nonzero counts in one write.
func reportCounts{{fileno}}(rank int) {
	var b strings.Builder
{{forallfn fn_name}}	if n := calls{{fn_name}}{{fileno}}.Load(); n > 0 {
		fmt.Fprintf(&b, "counter rank %d: {{fn_name}} %d\n", rank, n)
	}
{{endforallfn}}	os.Stdout.WriteString(b.String())
}

{{fnall fn_name}}
	calls{{fn_name}}{{fileno}}.Add(1)
{{callfn}}
{{endfnall}}

{{fn fn_name Finalize}}
	{{vardecl int rank}}
	{{rank}}, _ = layer.Next.CommRank(layer.Next.CommWorld())
	reportCounts{{fileno}}({{rank}})
{{callfn}}
{{endfn}}
