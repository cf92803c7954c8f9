package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/pmpi"
)

// envInfo is MPI_INFO_ENV: how the process was started, made at its
// first use, which may come before MPI_Init.
var envInfo = sync.OnceValue(func() *pmpi.Info { return startInfo(os.Args) })

// startInfo is the info MPI_Info_create_env describes with the keys of
// MPI 4.1 section 11.2.5 that gompi knows: the command and its
// arguments, the host, the working directory, the job size, and the
// thread level this library provides.
func startInfo(args []string) *pmpi.Info {
	info := pmpi.Real().InfoCreate()
	set := func(k, v string) {
		if len(v) > pmpi.MaxInfoVal {
			v = v[:pmpi.MaxInfoVal]
		}
		if v != "" {
			_ = pmpi.Real().InfoSet(info, k, v) // cannot fail: a short key, a value that fits
		}
	}
	if len(args) > 0 {
		set("command", args[0])
		set("argv", strings.Join(args[1:], " "))
	}
	if host, err := os.Hostname(); err == nil {
		set("host", host)
	}
	if wd, err := os.Getwd(); err == nil && len(wd) <= pmpi.MaxInfoVal {
		set("wdir", wd)
	}
	// The same before MPI_Init, while initialized and after: the launcher's
	// count, or else the world's.
	if n := ess.LaunchSize(os.Getenv); n > 0 {
		set("maxprocs", fmt.Sprint(n))
	} else if api().Initialized() && !api().Finalized() {
		set("maxprocs", fmt.Sprint(api().CommWorld().Size()))
	}
	set("thread_level", "MPI_THREAD_MULTIPLE")
	return info
}

// userInfo is the info behind h, which the call changes: MPI_INFO_ENV is
// read-only.
func userInfo(op string, h Info) (*pmpi.Info, error) {
	if h == MPI_INFO_ENV {
		return nil, &abiError{C.MPI_ERR_INFO, op + ": MPI_INFO_ENV is predefined and read-only (MPI_Info_dup it to change a copy)"}
	}
	return h.get()
}

func putInfo(i *pmpi.Info, out *Info) error {
	h, err := lib.infos.put(i)
	if err != nil {
		return err
	}
	*out = Info(h)
	return nil
}

func mpiInfoCreate(out *Info) error { return putInfo(api().InfoCreate(), out) }

func mpiInfoCreateEnv(argc int, argv unsafe.Pointer, out *Info) error {
	var args []string
	if argv != nil && argc > 0 {
		for _, p := range unsafe.Slice((**C.char)(argv), argc) {
			if p == nil {
				break
			}
			args = append(args, C.GoString(p))
		}
	} else {
		args = os.Args
	}
	return putInfo(startInfo(args), out)
}

func mpiInfoSet(h Info, key, value *C.char) error {
	i, err := userInfo("info set", h)
	if err != nil {
		return err
	}
	return api().InfoSet(i, C.GoString(key), C.GoString(value))
}

// lookup returns key's value in h and whether it has one.
func lookup(h Info, key *C.char) (string, bool, error) {
	i, err := h.get()
	if err != nil {
		return "", false, err
	}
	return api().InfoGet(i, C.GoString(key))
}

// mpiInfoGet writes at most valuelen bytes of the value and a NUL: the
// buffer has valuelen+1 bytes, as the standard asks.
func mpiInfoGet(h Info, key *C.char, valuelen int, value *C.char, flag *C.int) error {
	if valuelen < 0 {
		return errorf(pmpi.ClassArg, "info get: value length %d is negative", valuelen)
	}
	v, ok, err := lookup(h, key)
	if err != nil {
		return err
	}
	*flag = cbool(ok)
	if ok {
		putString(value, v, valuelen+1)
	}
	return nil
}

// mpiInfoGetString writes the value cut to *buflen bytes with its NUL,
// unless *buflen is 0, and sets *buflen to the value's length plus one.
func mpiInfoGetString(h Info, key *C.char, buflen *C.int, value *C.char, flag *C.int) error {
	if *buflen < 0 {
		return errorf(pmpi.ClassArg, "info get string: buffer length %d is negative", *buflen)
	}
	v, ok, err := lookup(h, key)
	if err != nil {
		return err
	}
	*flag = cbool(ok)
	if !ok {
		return nil
	}
	if *buflen > 0 {
		if value == nil {
			return errorf(pmpi.ClassArg, "info get string: value is NULL, buflen %d (0 asks for the length alone)", *buflen)
		}
		putString(value, v, int(*buflen))
	}
	*buflen = C.int(len(v) + 1)
	return nil
}

func mpiInfoGetValuelen(h Info, key *C.char, valuelen, flag *C.int) error {
	v, ok, err := lookup(h, key)
	if err != nil {
		return err
	}
	*flag = cbool(ok)
	if ok {
		*valuelen = C.int(len(v))
	}
	return nil
}

func mpiInfoDelete(h Info, key *C.char) error {
	i, err := userInfo("info delete", h)
	if err != nil {
		return err
	}
	return api().InfoDelete(i, C.GoString(key))
}

func mpiInfoGetNkeys(h Info, n *C.int) error {
	i, err := h.get()
	if err != nil {
		return err
	}
	k, err := api().InfoGetNkeys(i)
	if err == nil {
		*n = C.int(k)
	}
	return err
}

func mpiInfoGetNthkey(h Info, n int, key *C.char) error {
	i, err := h.get()
	if err != nil {
		return err
	}
	k, err := api().InfoGetNthkey(i, n)
	if err == nil {
		putString(key, k, C.MPI_MAX_INFO_KEY)
	}
	return err
}

func mpiInfoDup(h Info, out *Info) error {
	i, err := h.get()
	if err != nil {
		return err
	}
	d, err := api().InfoDup(i)
	if err != nil {
		return err
	}
	return putInfo(d, out)
}

func mpiInfoFree(h *Info) error {
	i, err := userInfo("info free", *h)
	if err != nil {
		return err
	}
	if err := api().InfoFree(i); err != nil {
		return err
	}
	lib.infos.drop(uintptr(*h))
	*h = MPI_INFO_NULL
	return nil
}
