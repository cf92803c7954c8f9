package stats

import (
	"maps"
	"path"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/frameworks/prof"
	"github.com/gompi/gompi/pmpi"
)

// keyDepth is how many return addresses key the call-site cache: enough
// to reach the user's frame through package mpi and a few tools above
// this one.
const keyDepth = 6

// maxKeys bounds the cache; calls from stacks beyond it share one
// "unknown" site rather than grow the cache without end.
const maxKeys = 1 << 14

// siteKey is what the hot path knows of a call: the function and the
// return addresses above this layer.
type siteKey struct {
	f   fn
	pcs [keyDepth]uintptr
}

// siteID is a call site as the report shows it.
type siteID struct {
	f    fn
	file string
	line int
}

// site is one line of the user's code that calls one MPI function.
type site struct {
	id   siteID
	fun  string // the user's function that holds the line
	c    counter
	next *site // discovery order, newest first
}

// sites maps call stacks to call sites. Reads are a lookup in an
// immutable map with no lock; a new stack, rare after the first
// iterations, copies the map under mu.
type sites struct {
	read     atomic.Pointer[map[siteKey]*site]
	mu       sync.Mutex
	byID     map[siteID]*site
	newest   *site
	internal func(pkg string) bool
}

func newSites() *sites {
	s := &sites{byID: map[siteID]*site{}, internal: internalPackages()}
	s.read.Store(&map[siteKey]*site{})
	return s
}

// lookup returns the site of the call whose stack above the layer is pcs.
func (s *sites) lookup(f fn, pcs *[keyDepth]uintptr) *site {
	k := siteKey{f: f, pcs: *pcs}
	if st, ok := (*s.read.Load())[k]; ok {
		return st
	}
	return s.resolve(k)
}

// resolve finds the user's frame of a new stack, outside the hot path.
// It walks the whole stack of this call with runtime.Callers, so that a
// deep stack of tools still finds it.
func (s *sites) resolve(k siteKey) *site {
	id, fun := siteID{f: k.f, file: "?"}, "?"
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs[:])])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !s.internal(packageOf(fr.Function)) {
			id.file, id.line, fun = fr.File, fr.Line, fr.Function
			break
		}
		if !more {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.read.Load()
	if st, ok := old[k]; ok {
		return st
	}
	if len(old) >= maxKeys {
		id, fun = siteID{f: k.f, file: "?"}, "?"
	}
	st, ok := s.byID[id]
	if !ok {
		st = &site{id: id, fun: fun, next: s.newest}
		st.c.start()
		s.byID[id], s.newest = st, st
	}
	if len(old) < maxKeys {
		m := maps.Clone(old)
		m[k] = st
		s.read.Store(&m)
	}
	return st
}

// each calls f on every site found so far.
func (s *sites) each(f func(*site)) {
	s.mu.Lock()
	st := s.newest
	s.mu.Unlock()
	for ; st != nil; st = st.next {
		f(st)
	}
}

// internalPackages reports the packages whose frames are not the user's:
// the runtime, packages mpi, pmpi and frameworks/prof, this tool and the
// other tools beside it (when stacked above this one). Test packages of
// the tools are the user's.
func internalPackages() func(string) bool {
	own := reflect.TypeFor[counter]().PkgPath()
	pmpiPath := reflect.TypeFor[pmpi.Comm]().PkgPath()
	skip := map[string]bool{
		"runtime":                              true,
		pmpiPath:                               true,
		path.Join(path.Dir(pmpiPath), "mpi"):   true,
		reflect.TypeFor[prof.Base]().PkgPath(): true,
		own:                                    true,
	}
	tools := path.Dir(own) + "/"
	return func(pkg string) bool {
		return skip[pkg] || strings.HasPrefix(pkg, tools) && !strings.HasSuffix(pkg, "_test")
	}
}

// packageOf returns the import path of a function's package from its
// symbol name, such as github.com/gompi/gompi/mpi.Send[go.shape.float64].
func packageOf(function string) string {
	if i := strings.IndexByte(function, '['); i >= 0 {
		function = function[:i]
	}
	slash := max(strings.LastIndexByte(function, '/'), 0)
	if dot := strings.IndexByte(function[slash:], '.'); dot >= 0 {
		return function[:slash+dot]
	}
	return function
}
