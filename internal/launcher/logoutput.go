package launcher

import (
	"io"
	"sync"
)

// LogOutput is the output of gompirun's logger: its fallback writer, and,
// while Run runs a job that has it as Config.LogOutput, the job's
// terminal. Log lines then land between the ranks' lines, in order with
// Run's messages, and never hold the supervisor up on a stderr nobody
// reads.
type LogOutput struct {
	mu   sync.Mutex
	to   io.Writer
	base io.Writer
}

// NewLogOutput returns a LogOutput that writes to w outside a job.
func NewLogOutput(w io.Writer) *LogOutput { return &LogOutput{to: w, base: w} }

func (o *LogOutput) Write(b []byte) (int, error) {
	o.mu.Lock()
	w := o.to
	o.mu.Unlock()
	return w.Write(b)
}

// attach sends the log to w until the returned function is called.
func (o *LogOutput) attach(w io.Writer) (detach func()) {
	o.mu.Lock()
	o.to = w
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		o.to = o.base
		o.mu.Unlock()
	}
}
