// Package profplugin is the SDK of out-of-process profiling tools: a
// program that implements Tool (embedding Base) and calls Serve becomes an
// executable mca_prof_<name> that gompi finds on mca_base_component_path
// and runs when the prof parameter names it. Each rank starts its own
// tool process, which receives the rank's MPI calls as a stream of events
// in batches, and writes its report at Finish.
//
// The package imports neither pmpi nor frameworks/prof, so a tool stays a
// small program. examples/plugins/mca_prof_jsonl is a complete tool.
package profplugin

import (
	"context"
	"time"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
)

// Tool is what an out-of-process profiling tool implements, mostly
// through the embedded Base: the component lifecycle (its parameters
// reach Open as for any component), then one rank's stream.
type Tool interface {
	mca.Component
	// Start opens the rank's stream, at the end of its Init.
	Start(ctx context.Context, job Job) error
	// Events delivers the next calls, in the order they returned. The
	// slice is reused after the call returns.
	Events(ctx context.Context, events []Event) error
	// Pcontrol delivers a call of Pcontrol in its place among the events:
	// e.Level is its level.
	Pcontrol(ctx context.Context, e Event) error
	// Finish ends the stream, at the rank's Finalize: the tool writes its
	// report and names its files, which gompirun lists.
	Finish(ctx context.Context) (Report, error)
}

// Job is the rank a tool process serves.
type Job struct {
	ID         string
	Rank, Size int // in the world communicator
	// Zero is the wall-clock time the events' times count from.
	Zero time.Time
}

// Event is one MPI call that returned.
type Event struct {
	Fn string // the call's name in gompi's PMPI API: "Send", "Allreduce"
	// Peer is the dest, source or root as the call names it, in the ranks
	// of Comm; -1 when the call has none. Sendrecv's is its dest.
	Peer  int
	Tag   int   // -1 when the call has none; Sendrecv's is its send tag
	Bytes int64 // count * datatype size of the call's (send) buffer, else 0; 0 on ProcNull
	// Comm is the communicator's name, empty when the call has none.
	Comm       string
	Start, End time.Duration // since Job.Zero
	Err        bool          // the call returned an error
	Level      int           // Pcontrol's level
}

// Report is what a tool wrote.
type Report struct {
	Paths   []string // files, which gompirun lists at the job's end
	Summary string   // a short text the host logs at info level
}

// Base gives a tool the lifecycle's and the stream's defaults: it
// ignores the stream and reports nothing.
type Base struct {
	mca.BaseComponent
}

// Start does nothing.
func (*Base) Start(context.Context, Job) error { return nil }

// Events does nothing.
func (*Base) Events(context.Context, []Event) error { return nil }

// Pcontrol does nothing.
func (*Base) Pcontrol(context.Context, Event) error { return nil }

// Finish reports nothing.
func (*Base) Finish(context.Context) (Report, error) { return Report{}, nil }

// Info is the identity of a tool built against this version of the prof
// framework, with its constructor; pass it to Serve.
func Info(name string, version mca.Version, priority int, newTool func() Tool) mca.Info {
	api := mca.Version{Major: profpb.APIMajor, Minor: profpb.APIMinor, Patch: profpb.APIPatch}
	return mca.NewInfo("prof", api, name, version, priority, func() mca.Component { return newTool() })
}
