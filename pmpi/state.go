package pmpi

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/pml"
)

// maxUnexpectedListed bounds the unexpected messages a state report lists.
const maxUnexpectedListed = 20

// state answers gompirun's question "what is this rank doing?": the
// engine's pending operations in the terms of the program (communicator
// names and ranks, the MPI call that waits and where it was called), and
// its unexpected messages.
func (l *library) state(stacks bool) ess.State {
	es := l.engine.State(maxUnexpectedListed)
	st := ess.State{UnexpectedTotal: es.UnexpectedTotal}
	for _, op := range es.Pending {
		comm, collective := l.describeContext(op.Context, op.Tag)
		o := ess.Op{
			Kind: op.Kind, PeerWorld: op.Peer, Peer: l.commRank(op.Context, op.Peer), Tag: op.Tag,
			Comm: comm, Bytes: op.Bytes, Collective: collective,
		}
		if op.Wait != nil {
			o.Call, o.Site = callSite(op.Wait.PCs, op.Wait.ForeignPC)
			o.Waited = time.Since(op.Wait.Since)
		}
		st.Ops = append(st.Ops, o)
	}
	l.collWaits.Range(func(k, _ any) bool {
		w := k.(*collWait)
		o := ess.Op{
			Kind: "coll", PeerWorld: w.comm.group[w.peer], Peer: w.peer, Tag: -1,
			Comm: w.comm.Name(), Collective: w.collective, Waited: time.Since(w.since),
		}
		o.Call, o.Site = callSite(w.pcs, w.foreignPC)
		st.Ops = append(st.Ops, o)
		return true
	})
	// A non-blocking call that waits for the rank's next poll to begin
	// has no message pending yet.
	deferred := 0
	l.engine.EachDeferred(func(d pml.Deferred) {
		if j, ok := d.(interface{ running() bool }); ok && !j.running() {
			deferred++
		}
	})
	if deferred > 0 {
		st.Ops = append(st.Ops, ess.Op{Kind: "deferred", PeerWorld: -1, Peer: -1, Tag: -1, Bytes: deferred})
	}
	for _, f := range finalizeSites(l.finalizePC.Load()) {
		st.Ops = append(st.Ops, ess.Op{Kind: "finalize", PeerWorld: -1, Peer: -1, Tag: -1, Comm: "world",
			Call: f.call, Site: f.site})
	}
	for _, m := range es.Unexpected {
		comm, collective := l.describeContext(m.Context, m.Tag)
		st.Unexpected = append(st.Unexpected, ess.Message{
			From: l.commRank(m.Context, m.From), FromWorld: m.From, Tag: m.Tag, Comm: comm,
			Bytes: m.Size, Collective: collective, Probed: m.Probed,
		})
	}
	if stacks {
		st.Stacks = allStacks()
	}
	return st
}

// comm finds the communicator that owns a context id: each has two, the
// even one for its point-to-point traffic and the next for its collectives,
// and each of its non-blocking and persistent collectives runs on a
// context of its own made from the first (nbcContext).
func (l *library) comm(cid uint32) *Comm {
	if isNBCContext(cid) {
		cid = (cid &^ (1 << 31)) >> nbcSlotBits
	}
	if c, ok := l.comms.Load(cid &^ 1); ok {
		return c.(*Comm)
	}
	return nil
}

// isNBCContext reports whether cid is the context of a non-blocking or
// persistent collective's slot.
func isNBCContext(cid uint32) bool { return cid&(1<<31) != 0 }

// describeContext names the communicator of a context id and, for the
// collective context, the collective the tag belongs to; a non-blocking
// or persistent collective's messages are named as such, their tags
// being the algorithm's own.
func (l *library) describeContext(cid uint32, tag int) (comm, collective string) {
	c := l.comm(cid)
	if c == nil {
		return fmt.Sprintf("context %d", cid), ""
	}
	switch {
	case isNBCContext(cid) && int(cid&(1<<nbcSlotBits-1)) >= nbcOutstanding:
		collective = "a persistent collective"
	case isNBCContext(cid):
		collective = "a non-blocking collective"
	case cid&1 == 1:
		collective = coll.TagName(tag)
	}
	return c.Name(), collective
}

// commRank translates a world rank to its rank in the context's
// communicator; AnySource and unknown ranks stay as they are.
func (l *library) commRank(cid uint32, world int) int {
	if world == pml.AnySource {
		return world
	}
	if c := l.comm(cid); c != nil {
		if r, ok := c.rankOf(world); ok {
			return r
		}
	}
	return world
}

// finalizeSites finds the goroutines that are inside Finalize, which waits
// there for every rank to call it, and returns the call and the program's
// call site of each ("" where the stack does not show it): without them a
// rank that waits in Finalize while the others wait for it in a call it
// skipped would report nothing pending. A C program's call is
// MPI_Finalize, at the site its caller's return address pc names. It
// reads the goroutines' tracebacks: runtime.GoroutineProfile keeps 32
// frames, fewer than a wait in the job server's client takes.
func finalizeSites(pc uintptr) []finalizeSite {
	const finalize = "\ngithub.com/gompi/gompi/pmpi.(*realAPI).Finalize("
	var sites []finalizeSite
	for _, g := range strings.Split(allStacks(), "\n\n") {
		_, after, ok := strings.Cut(g, finalize)
		if !ok {
			continue
		}
		// Frames are a function's line, then a tab and file:line.
		lines := strings.Split(after, "\n")
		f := finalizeSite{call: "Finalize"}
	frames:
		for i := 2; i+1 < len(lines); i += 2 {
			fn := lines[i][:max(strings.LastIndexByte(lines[i], '('), 0)]
			file, _, _ := strings.Cut(strings.TrimSpace(lines[i+1]), " ")
			switch {
			case fn == "main.PMPI_Finalize" && strings.Contains(file, "/capi/"):
				// gompi's C library: C's frames lie beyond the traceback.
				f = finalizeSite{call: "MPI_Finalize", site: foreignSite(pc)}
				break frames
			case strings.HasPrefix(fn, "main.") && strings.Contains(file, "/capi/"):
				// the C library's Go side, between its entry point and pmpi
			case fn != "" && !inLibrary(fn):
				f.site = filepath.Base(file)
				break frames
			}
		}
		sites = append(sites, f)
	}
	return sites
}

// finalizeSite is a call of Finalize and where the program made it.
type finalizeSite struct{ call, site string }

// libraryPrefixes are the packages whose frames are gompi's, not the
// program's: the call site is the first frame outside them.
var libraryPrefixes = []string{
	"github.com/gompi/gompi/mpi.", "github.com/gompi/gompi/pmpi.", "github.com/gompi/gompi/internal/",
	"github.com/gompi/gompi/frameworks/", "github.com/gompi/gompi/components/", "runtime.",
}

func inLibrary(fn string) bool {
	for _, p := range libraryPrefixes {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// callSite finds, in a waiting goroutine's stack, the MPI call the
// program made (the outermost frame of package mpi, or of pmpi's API for
// a program that calls it directly) and the program's file:line calling
// it; for a C program's call, where foreignPC says it called. A goroutine
// of the library's own (a non-blocking collective's) has no call: no call
// of the program waits there.
func callSite(pcs []uintptr, foreignPC uintptr) (call, site string) {
	frames := runtime.CallersFrames(pcs)
	fromMPI := false
	for {
		f, more := frames.Next()
		if name, ok := strings.CutPrefix(f.Function, "main.PMPI_"); ok && strings.Contains(f.File, "/capi/") {
			// The entry point of gompi's C library: C's frames lie beyond,
			// where Go's traceback does not reach.
			return "MPI_" + name, foreignSite(foreignPC)
		}
		if strings.HasPrefix(f.Function, "main.") && strings.Contains(f.File, "/capi/") {
			continue // the C library's Go side, between its entry point and pmpi
		}
		if !inLibrary(f.Function) {
			if call != "" {
				site = fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
			}
			return call, site
		}
		if name, ok := strings.CutPrefix(f.Function, "github.com/gompi/gompi/mpi."); ok {
			call, fromMPI = name, true
		} else if name, ok := strings.CutPrefix(f.Function, "github.com/gompi/gompi/pmpi.(*realAPI)."); ok && !fromMPI {
			call = name // frames go outward: the last is the entry point
		}
		if i := strings.IndexByte(call, '['); i >= 0 {
			call = call[:i] // a generic function's instantiation
		}
		if !more {
			return call, site
		}
	}
}

// allStacks returns every goroutine's stack, as a Go traceback prints it,
// up to 4 MiB.
func allStacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 4<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// QueueLevels is what the point-to-point engine's queues hold now (the
// library's own operations among them), for the C library's performance
// variables; zero while MPI does not run.
func QueueLevels() pml.Levels {
	if l, err := running("queue levels"); err == nil {
		return l.engine.Levels()
	}
	return pml.Levels{}
}
