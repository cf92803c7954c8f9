package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/pmpi"
)

// userErrors are the error classes and codes a program adds, numbered
// from MPI_ERR_LASTCODE+1 up, and the strings it gives them.
type userErrors struct {
	mu    sync.Mutex
	last  int            // the last code given, MPI_ERR_LASTCODE before any
	class map[int]int    // a code's class; a class is its own
	text  map[int]string // what MPI_Error_string says
}

// classOfCode is code's error class, and whether code is one.
func classOfCode(code int) (int, bool) {
	if code >= 0 && code <= C.MPI_ERR_ABI || code == C.MPI_ERR_LASTCODE {
		return code, true
	}
	u := &lib.errs
	u.mu.Lock()
	defer u.mu.Unlock()
	c, ok := u.class[code]
	return c, ok
}

// add gives a new code of class (itself for a new class) and makes it
// MPI_LASTUSEDCODE.
func (u *userErrors) add(class int, out *C.int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.class == nil {
		u.class, u.text, u.last = map[int]int{}, map[int]string{}, C.MPI_ERR_LASTCODE
	}
	if u.last == 1<<30 {
		return errNoMem("error codes", 1<<30-C.MPI_ERR_LASTCODE)
	}
	u.last++
	if class < 0 {
		class = u.last
	}
	u.class[u.last] = class
	attrValues()[C.MPI_LASTUSEDCODE-firstAttr] = C.int(u.last)
	*out = C.int(u.last)
	return nil
}

func mpiAddErrorClass(out *C.int) error { return lib.errs.add(-1, out) }

func mpiAddErrorCode(class int, out *C.int) error {
	if c, ok := classOfCode(class); !ok || c != class {
		return errorf(pmpi.ClassArg, "add error code: %d is not an error class", class)
	}
	return lib.errs.add(class, out)
}

func mpiAddErrorString(code int, s *C.char) error {
	msg := C.GoString(s)
	if len(msg) >= C.MPI_MAX_ERROR_STRING {
		return errorf(pmpi.ClassArg, "add error string: %d bytes, more than MPI_MAX_ERROR_STRING-1 (%d)", len(msg), C.MPI_MAX_ERROR_STRING-1)
	}
	u := &lib.errs
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.class[code]; !ok {
		return errorf(pmpi.ClassArg, "add error string: %d is not a class or code MPI_Add_error_class or _code made (predefined ones keep their strings)", code)
	}
	u.text[code] = msg
	return nil
}

// remove forgets a code, or a class that has no code left; MPI 4.1 makes
// removing one whose string was not removed first erroneous.
func (u *userErrors) remove(op string, code int, isClass bool) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	c, ok := u.class[code]
	switch {
	case !ok:
		return errorf(pmpi.ClassArg, "%s: %d is not a class or code MPI_Add_error_class or _code made", op, code)
	case isClass && c != code:
		return errorf(pmpi.ClassArg, "%s: %d is a code of class %d, not a class", op, code, c)
	case !isClass && c == code:
		return errorf(pmpi.ClassArg, "%s: %d is a class, not a code", op, code)
	}
	if _, ok := u.text[code]; ok {
		return errorf(pmpi.ClassArg, "%s: %d still has the string MPI_Add_error_string gave it (remove it first with MPI_Remove_error_string)", op, code)
	}
	if isClass {
		for other, oc := range u.class {
			if oc == code && other != code {
				return errorf(pmpi.ClassArg, "%s: class %d still has code %d", op, code, other)
			}
		}
	}
	delete(u.class, code)
	return nil
}

func mpiRemoveErrorClass(class int) error {
	return lib.errs.remove("remove error class", class, true)
}

func mpiRemoveErrorCode(code int) error {
	return lib.errs.remove("remove error code", code, false)
}

func mpiRemoveErrorString(code int) error {
	u := &lib.errs
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.text[code]; !ok {
		return errorf(pmpi.ClassArg, "remove error string: code %d has no string MPI_Add_error_string gave", code)
	}
	delete(u.text, code)
	return nil
}

func mpiErrorClass(code int, class *C.int) error {
	c, ok := classOfCode(code)
	if !ok {
		return errorf(pmpi.ClassArg, "error class: %d is not an error code (0..%d, MPI_ERR_LASTCODE (%d), or one MPI_Add_error_code made)", code, C.MPI_ERR_ABI, C.MPI_ERR_LASTCODE)
	}
	*class = C.int(c)
	return nil
}

// lastErrors holds, for each predefined error class, the message of the
// last error of the class that a call of this process returned or raised,
// with the call's name.
type lastErrors [C.MPI_ERR_ABI + 1]atomic.Pointer[string]

func (l *lastErrors) note(fn string, err error) {
	if code := classOf(err); code > 0 && code < len(l) {
		s := "in " + fn + ": " + err.Error()
		l[code].Store(&s)
	}
}

func (l *lastErrors) last(code int) string {
	if code > 0 && code < len(l) {
		if p := l[code].Load(); p != nil {
			return *p
		}
	}
	return ""
}

func mpiErrorString(code int, s *C.char, n *C.int) error {
	if _, ok := classOfCode(code); !ok {
		return errorf(pmpi.ClassArg, "error string: %d is not an error code (0..%d, MPI_ERR_LASTCODE (%d), or one MPI_Add_error_code made)", code, C.MPI_ERR_ABI, C.MPI_ERR_LASTCODE)
	}
	msg, ok := classNames[code]
	if ok {
		// The class says little where a code is its class, as here: the
		// last error of the class says what went wrong, where the error
		// the program asks about is that one (most often, as it asks
		// right after the call failed).
		if last := lib.lastErrs.last(code); last != "" {
			msg += "; the last error of this class in this process: " + last
		}
	} else if code <= C.MPI_ERR_ABI || code == C.MPI_ERR_LASTCODE {
		msg = fmt.Sprintf("MPI error class %d", code)
	} else {
		lib.errs.mu.Lock()
		msg = lib.errs.text[code]
		lib.errs.mu.Unlock()
	}
	*n = C.int(putString(s, msg, C.MPI_MAX_ERROR_STRING))
	return nil
}
