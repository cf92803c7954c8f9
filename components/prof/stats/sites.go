package stats

import (
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
	idx  int    // the site's place in each shard's tallies
	next *site  // discovery order, newest first
}

// sites maps call stacks to call sites through an open-addressing hash
// table: a lookup hashes the return addresses with a multiply each and
// compares a few words, where Go's map would hash the whole key with
// AES, several times as long. Readers take no lock: a writer, under mu,
// fills a free slot's key and only then publishes its site, and replaces
// a table that grows half full by a copy twice its size.
type sites struct {
	table    atomic.Pointer[siteTable]
	mu       sync.Mutex
	keys     int // keys in the table
	byID     map[siteID]*site
	newest   *site
	n        int // sites found
	internal func(pkg string) bool
}

type siteTable struct {
	mask  uint64
	slots []siteSlot
}

type siteSlot struct {
	key siteKey
	st  atomic.Pointer[site] // nil: the slot is free
}

func newSites() *sites {
	s := &sites{byID: map[siteID]*site{}, internal: internalPackages()}
	s.table.Store(newSiteTable(64))
	return s
}

func newSiteTable(n int) *siteTable {
	return &siteTable{mask: uint64(n - 1), slots: make([]siteSlot, n)}
}

// same compares two keys word by word: inline, where == on the struct
// calls the runtime's memory comparison.
func (k *siteKey) same(o *siteKey) bool {
	if k.f != o.f {
		return false
	}
	for i := range k.pcs {
		if k.pcs[i] != o.pcs[i] {
			return false
		}
	}
	return true
}

// hash mixes the key's words with independent multiplies, which the
// processor runs side by side, and one final mix.
func (k *siteKey) hash() uint64 {
	h := uint64(k.f)
	for i, pc := range k.pcs {
		h += uint64(pc) * (0x9e3779b97f4a7c15 + 2*uint64(i))
	}
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// find returns the slot of k, or the free slot where it belongs.
func (t *siteTable) find(k *siteKey) *siteSlot {
	for i := k.hash() & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.st.Load() == nil || sl.key == *k {
			return sl
		}
	}
}

// lookup returns the site of the call k: its function and its stack above
// the layer.
func (s *sites) lookup(k *siteKey) *site {
	if st := s.table.Load().find(k).st.Load(); st != nil {
		return st
	}
	return s.resolve(*k)
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
		if strings.HasPrefix(fr.Function, "main.") && strings.Contains(fr.File, "/capi/") {
			// gompi's C library: the site is its entry point, since C's
			// frames lie beyond what Go's traceback sees.
			if name, ok := strings.CutPrefix(fr.Function, "main.PMPI_"); ok {
				id.file, fun = "C", "MPI_"+name
				break
			}
			continue
		}
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
	t := s.table.Load()
	if st := t.find(&k).st.Load(); st != nil {
		return st
	}
	full := s.keys >= maxKeys
	if full {
		id, fun = siteID{f: k.f, file: "?"}, "?"
	}
	st, ok := s.byID[id]
	if !ok {
		st = &site{id: id, fun: fun, idx: s.n, next: s.newest}
		s.byID[id], s.newest = st, st
		s.n++
	}
	if full {
		return st
	}
	if 2*(s.keys+1) > len(t.slots) {
		t = s.grow(t)
	}
	sl := t.find(&k)
	sl.key = k
	sl.st.Store(st)
	s.keys++
	return st
}

// grow publishes a copy of t twice its size.
func (s *sites) grow(t *siteTable) *siteTable {
	nt := newSiteTable(2 * len(t.slots))
	for i := range t.slots {
		old := &t.slots[i]
		if st := old.st.Load(); st != nil {
			sl := nt.find(&old.key)
			sl.key = old.key
			sl.st.Store(st)
		}
	}
	s.table.Store(nt)
	return nt
}

// all returns the sites found so far, by index.
func (s *sites) all() []*site {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*site, s.n)
	for st := s.newest; st != nil; st = st.next {
		out[st.idx] = st
	}
	return out
}

// internalPackages reports the packages whose frames are not the user's:
// the runtime, packages mpi, pmpi and frameworks/prof, this tool and the
// other tools beside it (when stacked above this one). Test packages of
// the tools are the user's.
func internalPackages() func(string) bool {
	own := reflect.TypeFor[tally]().PkgPath()
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
