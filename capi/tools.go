package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// The tools information interface (MPI_T). Its control variables are
// gompi's MCA parameters, as gompi_info lists them, with their resolved
// values: those of the running library, or, before MPI_Init, resolved
// from the same sources (environment, parameter files) at the first
// MPI_T_init_thread. They are read-only: gompi reads its parameters once,
// at MPI_Init. Each framework is a category, holding its own parameters
// and a category per component. The performance variables are the
// point-to-point engine's queue levels, in a category of their own
// (tools_pvar.go). gompi offers no events; one source, the monotonic
// clock in nanoseconds, times them. MPI_T functions return their error
// codes without calling an error handler, as the standard says.

// tools is the MPI_T state: live between the first MPI_T_init_thread and
// the matching MPI_T_finalize.
type tools struct {
	mu       sync.Mutex
	inits    int
	vars     []params.Value
	varIndex map[string]int
	cats     []category
	catIndex map[string]int
	handles  map[uintptr]int             // cvar handles -> their variable
	sessions map[uintptr]map[uintptr]int // pvar sessions -> their handles -> their variable
	next     uintptr                     // the next handle
}

type category struct {
	name, desc        string
	vars, pvars, cats []int
}

// toolError is an MPI_T function's error code, returned as it is.
type toolError struct {
	code int
	msg  string
}

func (e *toolError) Error() string { return e.msg }

func toolErr(code int, format string, args ...any) error {
	return &toolError{code, fmt.Sprintf(format, args...)}
}

// running runs f on the state under its lock, once MPI_T_init_thread ran.
func (t *tools) running(f func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inits == 0 {
		return toolErr(C.MPI_T_ERR_NOT_INITIALIZED, "MPI_T is not initialised: call MPI_T_init_thread first")
	}
	return f()
}

func mpiTInitThread(required int, provided *C.int) error {
	t := &lib.tools
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inits == 0 {
		if err := t.load(); err != nil {
			return toolErr(C.MPI_T_ERR_CANNOT_INIT, "MPI_T init: %v", err)
		}
	}
	t.inits++
	*provided = C.MPI_THREAD_MULTIPLE
	return nil
}

func mpiTFinalize() error {
	t := &lib.tools
	return t.running(func() error {
		t.inits--
		if t.inits == 0 { // every handle and session ends
			t.vars, t.varIndex, t.cats, t.catIndex, t.handles, t.sessions = nil, nil, nil, nil, nil, nil
		}
		return nil
	})
}

// load takes the parameters' values and builds the categories.
func (t *tools) load() error {
	snap := pmpi.ParamValues()
	if snap == nil {
		in, err := params.DefaultInputs()
		if err != nil {
			return err
		}
		sys, err := mca.Load(mca.Options{Logger: mca.NewLogger(), QuietWarnings: true, Params: pmpi.RegisterParams}, in)
		if err != nil {
			return err
		}
		snap = sys.Snapshot()
	}
	t.vars = snap.Values()
	t.varIndex = map[string]int{}
	t.catIndex = map[string]int{}
	t.handles = map[uintptr]int{}
	t.sessions = map[uintptr]map[uintptr]int{}
	if t.next == 0 { // not reset at MPI_T_finalize: a stale handle names nothing later
		t.next = firstHandle
	}
	t.cats = nil
	for i, v := range t.vars {
		t.varIndex[v.Def.Name] = i
		f := t.categoryOf(v.Def.Framework, "base", -1)
		if v.Def.Component != "base" {
			f = t.categoryOf(v.Def.Framework, v.Def.Component, f)
		}
		t.cats[f].vars = append(t.cats[f].vars, i)
	}
	t.addPvarCategory()
	return nil
}

// categoryOf is the index of the category of framework's component
// ("base" for the framework's own), made under parent (-1 for none) if
// new.
func (t *tools) categoryOf(framework, component string, parent int) int {
	name := framework
	if component != "base" {
		name = framework + "_" + component
	}
	if i, ok := t.catIndex[name]; ok {
		return i
	}
	desc := fmt.Sprintf("the %s framework's parameters", framework)
	if component != "base" {
		desc = fmt.Sprintf("the parameters of the %s component of the %s framework", component, framework)
	}
	i := len(t.cats)
	t.cats = append(t.cats, category{name: name, desc: desc})
	t.catIndex[name] = i
	if parent >= 0 {
		t.cats[parent].cats = append(t.cats[parent].cats, i)
	}
	return i
}

// tString returns s in the tools interface's way: its length with the
// NUL in *n, and, unless dst is NULL or *n is 0, as much of it as fits in
// *n bytes with the NUL, *n then being what was written. A NULL n asks for
// nothing.
func tString(dst *C.char, n *C.int, s string) {
	if n == nil {
		return
	}
	if dst == nil || *n <= 0 {
		*n = C.int(len(s) + 1)
		return
	}
	*n = C.int(putString(dst, s, int(*n)) + 1)
}

func (t *tools) cvar(i int) (params.Value, error) {
	if i < 0 || i >= len(t.vars) {
		return params.Value{}, toolErr(C.MPI_T_ERR_INVALID_INDEX, "control variable %d does not exist (0 to %d)", i, len(t.vars)-1)
	}
	return t.vars[i], nil
}

// verbosities maps a parameter's level, 1 to 9, to MPI_T's.
var verbosities = [...]C.int{C.MPI_T_VERBOSITY_USER_BASIC, C.MPI_T_VERBOSITY_USER_DETAIL, C.MPI_T_VERBOSITY_USER_ALL,
	C.MPI_T_VERBOSITY_TUNER_BASIC, C.MPI_T_VERBOSITY_TUNER_DETAIL, C.MPI_T_VERBOSITY_TUNER_ALL,
	C.MPI_T_VERBOSITY_MPIDEV_BASIC, C.MPI_T_VERBOSITY_MPIDEV_DETAIL, C.MPI_T_VERBOSITY_MPIDEV_ALL}

// cvarType is the datatype and element count a variable reads as: an int
// for booleans, enums, verbosities and ints that fit one, an MPI_COUNT for
// sizes and larger ints, a double, or the text with its NUL.
func cvarType(v params.Value) (Datatype, int) {
	switch v.Def.Kind {
	case params.KindInt:
		if n, _ := v.Parsed.(int); n < math.MinInt32 || n > math.MaxInt32 {
			return MPI_COUNT, 1
		}
		return MPI_INT, 1
	case params.KindSize:
		return MPI_COUNT, 1
	case params.KindFloat:
		return MPI_DOUBLE, 1
	case params.KindString, params.KindList:
		return MPI_CHAR, len(v.Raw) + 1
	}
	return MPI_INT, 1
}

func mpiTCvarGetNum(n *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		*n = C.int(len(t.vars))
		return nil
	})
}

func mpiTCvarGetInfo(i int, name *C.char, nameLen, verbosity *C.int, dt *Datatype, enumtype unsafe.Pointer,
	desc *C.char, descLen, bind, scope *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.cvar(i)
		if err != nil {
			return err
		}
		tString(name, nameLen, v.Def.Name)
		tString(desc, descLen, v.Def.Help)
		if verbosity != nil {
			*verbosity = verbosities[min(max(v.Def.Level, 1), 9)-1]
		}
		if dt != nil {
			*dt, _ = cvarType(v)
		}
		if enumtype != nil {
			e := uintptr(0) // MPI_T_ENUM_NULL
			if v.Def.Kind == params.KindEnum {
				e = firstHandle + uintptr(i)
			}
			*(*C.uintptr_t)(enumtype) = C.uintptr_t(e)
		}
		if bind != nil {
			*bind = C.MPI_T_BIND_NO_OBJECT
		}
		if scope != nil {
			*scope = C.MPI_T_SCOPE_READONLY
		}
		return nil
	})
}

func mpiTCvarGetIndex(name *C.char, out *C.int) error {
	return lib.tools.index("control variable", func(t *tools) map[string]int { return t.varIndex }, name, out)
}

// index writes to out the index of the variable or category of that name,
// in the map that names picks.
func (t *tools) index(what string, names func(*tools) map[string]int, name *C.char, out *C.int) error {
	return t.running(func() error {
		if name == nil {
			return toolErr(C.MPI_T_ERR_INVALID_NAME, "%s get index: the name is NULL", what)
		}
		i, ok := names(t)[C.GoString(name)]
		if !ok {
			return toolErr(C.MPI_T_ERR_INVALID_NAME, "no %s is named %q (gompi_info lists the parameters)", what, C.GoString(name))
		}
		*out = C.int(i)
		return nil
	})
}

func mpiTCvarHandleAlloc(i int, obj unsafe.Pointer, out unsafe.Pointer, count *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.cvar(i)
		if err != nil {
			return err
		}
		h := t.next
		t.next++
		t.handles[h] = i
		*(*C.uintptr_t)(out) = C.uintptr_t(h)
		_, n := cvarType(v)
		*count = C.int(n)
		return nil
	})
}

func mpiTCvarHandleFree(p unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		h := uintptr(*(*C.uintptr_t)(p))
		if _, ok := t.handles[h]; !ok {
			return toolErr(C.MPI_T_ERR_INVALID_HANDLE, "cvar handle free: %#x is not a control variable handle", h)
		}
		delete(t.handles, h)
		*(*C.uintptr_t)(p) = 0 // MPI_T_CVAR_HANDLE_NULL
		return nil
	})
}

// handle is the variable behind cvar handle h.
func (t *tools) handle(op string, h C.uintptr_t) (params.Value, error) {
	i, ok := t.handles[uintptr(h)]
	if !ok {
		return params.Value{}, toolErr(C.MPI_T_ERR_INVALID_HANDLE, "%s: %#x is not a control variable handle", op, uintptr(h))
	}
	return t.vars[i], nil
}

func mpiTCvarRead(h C.uintptr_t, buf unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.handle("cvar read", h)
		if err != nil {
			return err
		}
		if buf == nil {
			return toolErr(C.MPI_T_ERR_INVALID, "cvar read: the buffer is NULL")
		}
		switch dt, n := cvarType(v); dt {
		case MPI_CHAR:
			putString((*C.char)(buf), v.Raw, n)
		case MPI_DOUBLE:
			f, _ := v.Parsed.(float64)
			*(*C.double)(buf) = C.double(f)
		case MPI_COUNT:
			*(*C.MPI_Count)(buf) = C.MPI_Count(intValue(v))
		default:
			*(*C.int)(buf) = C.int(intValue(v))
		}
		return nil
	})
}

// intValue is a variable that reads as an integer: a boolean's 0 or 1,
// an enum's index among its values, a verbosity, an int, a size.
func intValue(v params.Value) int64 {
	switch p := v.Parsed.(type) {
	case bool:
		if p {
			return 1
		}
		return 0
	case params.Verbosity:
		return int64(p)
	case string:
		for i, e := range v.Def.Values {
			if e.Name == p {
				return int64(i)
			}
		}
	case int:
		return int64(p)
	case int64:
		return p
	}
	return 0
}

func mpiTCvarWrite(h C.uintptr_t, buf unsafe.Pointer) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.handle("cvar write", h)
		if err != nil {
			return err
		}
		return toolErr(C.MPI_T_ERR_CVAR_SET_NEVER, "cvar write: %s is read-only: gompi reads its parameters at MPI_Init (set it with --mca or GOMPI_MCA_%s)", v.Def.Name, v.Def.Name)
	})
}

// enum is the enum variable behind enumtype e.
func (t *tools) enum(e C.uintptr_t) (params.Value, error) {
	i := int(e) - firstHandle
	if i < 0 || i >= len(t.vars) || t.vars[i].Def.Kind != params.KindEnum {
		return params.Value{}, toolErr(C.MPI_T_ERR_INVALID_HANDLE, "%#x is not an enumeration", uintptr(e))
	}
	return t.vars[i], nil
}

func mpiTEnumGetInfo(e C.uintptr_t, num *C.int, name *C.char, nameLen *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.enum(e)
		if err != nil {
			return err
		}
		*num = C.int(len(v.Def.Values))
		tString(name, nameLen, v.Def.Name)
		return nil
	})
}

func mpiTEnumGetItem(e C.uintptr_t, i int, value *C.int, name *C.char, nameLen *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		v, err := t.enum(e)
		if err != nil {
			return err
		}
		if i < 0 || i >= len(v.Def.Values) {
			return toolErr(C.MPI_T_ERR_INVALID_ITEM, "enumeration %s has no item %d (0 to %d)", v.Def.Name, i, len(v.Def.Values)-1)
		}
		*value = C.int(i)
		tString(name, nameLen, v.Def.Values[i].Name)
		return nil
	})
}

func (t *tools) category(i int) (category, error) {
	if i < 0 || i >= len(t.cats) {
		return category{}, toolErr(C.MPI_T_ERR_INVALID_INDEX, "category %d does not exist (0 to %d)", i, len(t.cats)-1)
	}
	return t.cats[i], nil
}

func mpiTCategoryGetNum(n *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		*n = C.int(len(t.cats))
		return nil
	})
}

func mpiTCategoryGetInfo(i int, name *C.char, nameLen *C.int, desc *C.char, descLen *C.int, ncvars, npvars, ncats *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		c, err := t.category(i)
		if err != nil {
			return err
		}
		tString(name, nameLen, c.name)
		tString(desc, descLen, c.desc)
		for _, p := range []struct {
			out *C.int
			n   int
		}{{ncvars, len(c.vars)}, {npvars, len(c.pvars)}, {ncats, len(c.cats)}} {
			if p.out != nil {
				*p.out = C.int(p.n)
			}
		}
		return nil
	})
}

func mpiTCategoryGetIndex(name *C.char, out *C.int) error {
	return lib.tools.index("category", func(t *tools) map[string]int { return t.catIndex }, name, out)
}

// categoryList writes the first n of category i's members that pick
// chooses to indices.
func categoryList(i, n int, indices *C.int, pick func(category) []int) error {
	t := &lib.tools
	return t.running(func() error {
		c, err := t.category(i)
		if err != nil {
			return err
		}
		if n < 0 {
			return toolErr(C.MPI_T_ERR_INVALID, "category %d: a length of %d", i, n)
		}
		members := pick(c)
		if n = min(n, len(members)); n > 0 {
			out := unsafe.Slice(indices, n)
			for k := range n {
				out[k] = C.int(members[k])
			}
		}
		return nil
	})
}

func mpiTCategoryGetCvars(i, n int, indices *C.int) error {
	return categoryList(i, n, indices, func(c category) []int { return c.vars })
}

func mpiTCategoryGetCategories(i, n int, indices *C.int) error {
	return categoryList(i, n, indices, func(c category) []int { return c.cats })
}

func mpiTCategoryGetPvars(i, n int, indices *C.int) error {
	return categoryList(i, n, indices, func(c category) []int { return c.pvars })
}

func mpiTCategoryGetEvents(i, n int, indices *C.int) error {
	return categoryList(i, n, indices, func(category) []int { return nil })
}

func mpiTCategoryGetNumEvents(i int, n *C.int) error {
	t := &lib.tools
	return t.running(func() error {
		if _, err := t.category(i); err != nil {
			return err
		}
		*n = 0
		return nil
	})
}

// mpiTCategoryChanged's stamp never moves: the categories are fixed from
// MPI_T_init_thread on.
func mpiTCategoryChanged(stamp *C.int) error {
	return lib.tools.running(func() error {
		*stamp = 0
		return nil
	})
}

// Events: none. A registration or an instance handle is never valid.

func mpiTEventGetNum(n *C.int) error {
	return lib.tools.running(func() error {
		*n = 0
		return nil
	})
}

var errNoEvent = toolErr(C.MPI_T_ERR_INVALID_INDEX, "gompi has no events (MPI_T_event_get_num gives 0)")

func mpiTEventGetInfo(i int, name *C.char, nameLen, verbosity *C.int, dts *Datatype, displs *C.intptr_t, n *C.int,
	enumtype unsafe.Pointer, info *Info, desc *C.char, descLen, bind *C.int) error {
	return lib.tools.running(func() error { return errNoEvent })
}

func mpiTEventGetIndex(name *C.char, out *C.int) error {
	return lib.tools.running(func() error {
		return toolErr(C.MPI_T_ERR_INVALID_NAME, "no event is named %q: gompi has none", C.GoString(name))
	})
}

func mpiTEventHandleAlloc(i int, obj unsafe.Pointer, info Info, out unsafe.Pointer) error {
	return lib.tools.running(func() error { return errNoEvent })
}

func noEventHandle(h C.uintptr_t) error {
	return lib.tools.running(func() error {
		return toolErr(C.MPI_T_ERR_INVALID_HANDLE, "%#x is not an event registration or instance: gompi has no events", uintptr(h))
	})
}

func mpiTEventHandleFree(r C.uintptr_t, data unsafe.Pointer, cb C.uintptr_t) error {
	return noEventHandle(r)
}

func mpiTEventHandleGetInfo(r C.uintptr_t, info *Info) error { return noEventHandle(r) }

func mpiTEventHandleSetInfo(r C.uintptr_t, info Info) error { return noEventHandle(r) }

func mpiTEventCallbackGetInfo(r, safety C.uintptr_t, info *Info) error { return noEventHandle(r) }

func mpiTEventCallbackSetInfo(r, safety C.uintptr_t, info Info) error { return noEventHandle(r) }

func mpiTEventRegisterCallback(r, safety C.uintptr_t, info Info, data unsafe.Pointer, cb C.uintptr_t) error {
	return noEventHandle(r)
}

func mpiTEventSetDroppedHandler(r, cb C.uintptr_t) error { return noEventHandle(r) }

func mpiTEventCopy(e C.uintptr_t, buf unsafe.Pointer) error { return noEventHandle(e) }

func mpiTEventRead(e C.uintptr_t, i int, buf unsafe.Pointer) error { return noEventHandle(e) }

func mpiTEventGetTimestamp(e C.uintptr_t, ts *C.int64_t) error { return noEventHandle(e) }

func mpiTEventGetSource(e C.uintptr_t, src *C.int) error { return noEventHandle(e) }

// One source: the monotonic clock, in nanoseconds.

func mpiTSourceGetNum(n *C.int) error {
	return lib.tools.running(func() error {
		*n = 1
		return nil
	})
}

func checkSource(i int) error {
	if i != 0 {
		return toolErr(C.MPI_T_ERR_INVALID_INDEX, "source %d does not exist (there is one, 0)", i)
	}
	return nil
}

func mpiTSourceGetInfo(i int, name *C.char, nameLen *C.int, desc *C.char, descLen *C.int, ordering unsafe.Pointer,
	ticks, maxTicks *C.int64_t, info *Info) error {
	return lib.tools.running(func() error {
		if err := checkSource(i); err != nil {
			return err
		}
		tString(name, nameLen, "gompi_clock")
		tString(desc, descLen, "the monotonic clock of the process, in nanoseconds")
		if ordering != nil {
			*(*C.int)(ordering) = C.MPI_T_SOURCE_ORDERED
		}
		if ticks != nil {
			*ticks = 1e9
		}
		if maxTicks != nil {
			*maxTicks = math.MaxInt64
		}
		if info != nil {
			h, err := lib.infos.put(pmpi.Real().InfoCreate())
			if err != nil {
				return err
			}
			*info = Info(h)
		}
		return nil
	})
}

func mpiTSourceGetTimestamp(i int, ts *C.int64_t) error {
	return lib.tools.running(func() error {
		if err := checkSource(i); err != nil {
			return err
		}
		var now unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
			return toolErr(C.MPI_T_ERR_INVALID, "source get timestamp: %v", err)
		}
		*ts = C.int64_t(now.Nano())
		return nil
	})
}

// toolDone is an MPI_T function's result: its error's code, returned
// without running an error handler, as the tools interface says.
func toolDone(err error) int {
	var te *toolError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &te):
		return te.code
	case classOf(err) == C.MPI_ERR_NO_MEM:
		return C.MPI_T_ERR_MEMORY
	}
	return C.MPI_T_ERR_INVALID
}
