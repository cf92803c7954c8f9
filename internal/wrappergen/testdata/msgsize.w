// msgsize.w logs the size of every message sent, with its destination and
// tag: wrappergen's message-size logger, arguments used by name (dest)
// and by number (0 is the buffer).

import (
	"fmt"
	"os"
)

{{fn fn_name Send Ssend Isend}}
	{{vardecl int bytes}}
	{{bytes}} = {{dt}}.Size() * {{count}}
	fmt.Fprintf(os.Stderr, "msgsize: {{fn_name}} to %d tag %d: %d bytes (buffer %d)\n", {{dest}}, {{tag}}, {{bytes}}, len({{0}}))
{{callfn}}
	if {{returnVal}} != nil {
		fmt.Fprintf(os.Stderr, "msgsize: {{fn_name}} to %d failed: %v\n", {{dest}}, {{returnVal}})
	}
{{endfn}}
