package main

import (
	"fmt"
	"go/token"
	"sort"
	"strings"
)

// handleTypes maps the ABI's handle types to the Go types of package
// capi that stand for them (MPI_Comm -> Comm).
func handleTypes(a *abi) map[string]string {
	m := map[string]string{}
	for _, it := range a.items {
		if it.kind == "handle" {
			m[it.fields[0]] = strings.TrimPrefix(it.fields[0], "MPI_")
		}
	}
	return m
}

// binding is how one parameter crosses from C to Go: its type in the
// exported function and the expression that hands it to the Go
// implementation, whose parameter type is goType.
type binding struct {
	name, cgoType, arg, goType string
}

func bind(p param, handles map[string]string) binding {
	name := p.name
	if token.Lookup(name).IsKeyword() || shadows[name] {
		name += "_"
	}
	b := binding{name: name}
	ptr := p.depth > 0
	switch h, isHandle := handles[p.base]; {
	case p.base == "int" && !ptr:
		b.cgoType, b.arg, b.goType = "C.int", "int("+name+")", "int"
	case (p.base == "MPI_Count" || p.base == "MPI_Offset") && !ptr:
		b.cgoType, b.arg, b.goType = "C.int64_t", "int("+name+")", "int"
	case p.base == "MPI_Aint" && !ptr:
		b.cgoType, b.arg, b.goType = "C.intptr_t", "int("+name+")", "int"
	case p.base == "double" && !ptr:
		b.cgoType, b.arg, b.goType = "C.double", "float64("+name+")", "float64"
	case isHandle && !ptr:
		b.cgoType, b.arg, b.goType = "C.uintptr_t", h+"("+name+")", h
	case isHandle && p.depth == 1:
		b.cgoType, b.arg, b.goType = "*C.uintptr_t", "(*"+h+")(unsafe.Pointer("+name+"))", "*"+h
	case p.depth == 1 && cPointee[p.base] != "":
		b.cgoType = "*" + cPointee[p.base]
		b.arg, b.goType = name, b.cgoType
	case strings.HasPrefix(p.base, "MPI_T_") && !ptr:
		// MPI_T's handles and enums: integers to Go.
		b.cgoType, b.arg, b.goType = "C.uintptr_t", name, "C.uintptr_t"
	default:
		// void *, char **, callbacks: a pointer the implementation reads
		// as its function documents.
		b.cgoType, b.arg, b.goType = "unsafe.Pointer", name, "unsafe.Pointer"
	}
	return b
}

// cPointee is the cgo type of the element a pointer parameter points to.
var cPointee = map[string]string{
	"int":        "C.int",
	"char":       "C.char",
	"MPI_Count":  "C.int64_t",
	"MPI_Offset": "C.int64_t",
	"MPI_Aint":   "C.intptr_t",
	"MPI_Status": "C.MPI_Status",
}

// shadows are the identifiers the exported functions' bodies use, which
// a parameter must not hide.
var shadows = map[string]bool{"int": true, "float64": true, "unsafe": true, "C": true, "done": true, "toolDone": true, "unsupported": true, "doneFile": true, "unsupportedFile": true, "nullArg": true, "err": true}

// mustPoint reports whether p points to what the call writes or reads
// back (an int, a count, a handle, a string it fills), so that NULL
// there is an error: the generated function checks it before the
// implementation dereferences it, and a status it reads. Arrays, statuses
// it fills (MPI_STATUS_IGNORE is NULL), untyped pointers and the pointers
// of the calls that raise their errors on the handler they are given are
// the implementations' to check, and so are the handle addresses of the
// constructors of outByImpl (implChecked);
// MPI_Init's argc may be NULL, and so may a string whose length argument
// is 0, which asks for the length alone.
func mustPoint(fn string, p param, handles map[string]string) bool {
	if p.base == "MPI_Status" && p.depth == 1 && !p.array {
		// A status a call reads (MPI_Get_count's) or sets fields of; one
		// it fills may be MPI_STATUS_IGNORE.
		return strings.HasPrefix(p.c, "const ") || strings.HasPrefix(fn, "MPI_Status_set")
	}
	if p.depth != 1 || p.array || strings.HasPrefix(p.c, "const ") || fn == "MPI_Init" || fn == "MPI_Init_thread" && p.name == "argc" {
		return false
	}
	if fn == "MPI_Comm_create_from_group" || fn == "MPI_Intercomm_create_from_groups" {
		return false // their errors go to the handler they are given
	}
	if implChecked(fn, p, handles) {
		return false
	}
	if p.base == "char" {
		return fn != "MPI_Info_get_string" && fn != "MPI_Session_get_nth_pset"
	}
	_, isHandle := handles[p.base]
	return isHandle || p.base != "MPI_Status" && cPointee[p.base] != ""
}

// outByImpl are the collective constructors whose implementations check
// the addresses of the handles they write (the new communicator's, an
// idup's request) themselves: a rank whose address is NULL still takes
// part in the call, so that the other ranks do not wait for it.
var outByImpl = map[string]bool{
	"MPI_Cart_create": true, "MPI_Cart_sub": true, "MPI_Graph_create": true,
	"MPI_Dist_graph_create": true, "MPI_Dist_graph_create_adjacent": true,
	"MPI_Comm_create": true, "MPI_Comm_split": true, "MPI_Comm_split_type": true,
	"MPI_Comm_dup": true, "MPI_Comm_dup_with_info": true,
	"MPI_Comm_idup": true, "MPI_Comm_idup_with_info": true,
	"MPI_Comm_create_group": true, "MPI_Intercomm_create": true, "MPI_Intercomm_merge": true,
}

// implChecked reports whether p is a handle that fn, a constructor of
// outByImpl, writes, whose address its implementation checks.
func implChecked(fn string, p param, handles map[string]string) bool {
	_, isHandle := handles[p.base]
	return outByImpl[fn] && isHandle && p.depth == 1 && !p.array && !strings.HasPrefix(p.c, "const ")
}

// madeHandle reports whether p is where a constructor writes the handle
// it makes (newcomm, newtype, comm_cart...): on a failure the generated
// function leaves the null handle there, not what the caller's variable
// held, as MPICH does and its users expect.
func madeHandle(p param, handles map[string]string) bool {
	_, isHandle := handles[p.base]
	return isHandle && p.depth == 1 && !p.array &&
		(strings.HasPrefix(p.name, "new") || p.name == "comm_cart" || p.name == "comm_graph" || p.name == "comm_dist_graph")
}

// nullHandles is each handle type's null value (MPI_Comm: MPI_COMM_NULL).
func nullHandles(a *abi) map[string]string {
	m := map[string]string{}
	for _, it := range a.items {
		if it.kind != "handle" {
			continue
		}
		for _, v := range it.values {
			if v[0] != "alias" && strings.HasSuffix(v[0], "_NULL") && m[it.fields[0]] == "" {
				m[it.fields[0]] = v[0]
			}
		}
	}
	return m
}

// implName is the Go function that implements an MPI function:
// MPI_Comm_rank -> mpiCommRank.
func implName(c string) string {
	var b strings.Builder
	b.WriteString("mpi")
	for _, part := range strings.Split(strings.TrimPrefix(c, "MPI_"), "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// glue is what the generator writes besides the header: the exported Go
// functions, the weak C entry points, and the list of what is
// implemented.
type glue struct {
	goSrc, weakC string
	constSrc     string
	implemented  []string
	unsupported  []string
}

// makeGlue writes the exported PMPI_ functions. impls are the Go
// functions package capi defines by hand, true for a generic one: an MPI
// function whose implementation exists calls it; its _c twin calls it
// too when every parameter reaches Go as the same type, or when the
// implementation is generic over its count types; any other returns
// MPI_ERR_UNSUPPORTED_OPERATION.
// inC are the functions the library writes in C, not generated: the
// variadic MPI_Pcontrol (pcontrol.c), and MPI_Wtime and MPI_Wtick
// (wtime.c), which read the clock without entering Go, as MPI lets them
// (it allows them to be macros in C, outside the profiling interface).
var inC = map[string]bool{"MPI_Pcontrol": true, "MPI_Wtime": true, "MPI_Wtick": true}

// gatedInC are the functions whose PMPI_ entry point is written in C,
// to answer without entering Go a repeated failed test or probe, or the
// predefined communicators' rank and size (gate.c), or MPI_Initialized
// and MPI_Finalized in a child that fork() made (fork.c); their Go
// implementations are exported as gompi_go_PMPI_X, which it calls.
var gatedInC = map[string]bool{
	"MPI_Test": true, "MPI_Testany": true, "MPI_Testall": true, "MPI_Testsome": true, "MPI_Iprobe": true,
	"MPI_Comm_rank": true, "MPI_Comm_size": true, "MPI_Initialized": true, "MPI_Finalized": true,
}

// wrappedInC are the functions whose weak MPI_ entry point is written in
// C: MPI_Abort, which a signal handler may call while the thread is
// inside another call, and which then ends the process in C (signal.c).
var wrappedInC = map[string]bool{"MPI_Abort": true}

func makeGlue(a *abi, impls map[string]bool) (glue, error) {
	handles := handleTypes(a)
	nulls := nullHandles(a)
	byName := map[string]*function{}
	for _, fn := range a.funcs {
		byName[fn.name] = fn
	}
	// goTypes is what fn's implementation is given: its parameters' Go
	// types, and the C types behind the pointers Go does not look into,
	// since a callback's type (MPI_User_function_c) tells how to call it.
	goTypes := func(fn *function) string {
		var ts []string
		for _, p := range fn.params {
			b := bind(p, handles)
			// MPI_Aint and MPI_Count are one type on the 64-bit Linux
			// the library is built for.
			t := strings.ReplaceAll(b.goType, "C.intptr_t", "C.int64_t")
			if t == "unsafe.Pointer" {
				t += "(" + p.base + ")"
			}
			ts = append(ts, t)
		}
		return strings.Join(ts, ",")
	}

	var g glue
	var gb, cb strings.Builder
	gb.WriteString(`// Code generated by internal/abigen from capi/mpi.abi; DO NOT EDIT.

package main

/*
#define GOMPI_ABI_TYPES_ONLY
#include "include/mpi.h"
*/
import "C"

import "unsafe"
`)
	cb.WriteString(`/* Generated by internal/abigen from capi/mpi.abi; do not edit.
 * Every MPI_ function is a weak symbol that calls its PMPI_ twin: a
 * profiling tool that defines MPI_X (linked before libmpi_abi, or
 * preloaded) takes its place and calls PMPI_X. MPI_Pcontrol, which is
 * variadic, is in pcontrol.c, MPI_Wtime and MPI_Wtick in wtime.c. Each
 * keeps its caller's address for the call (caller.h). */
#include "include/mpi.h"
#include "caller.h"
`)
	for _, fn := range a.funcs {
		if inC[fn.name] {
			g.implemented = append(g.implemented, fn.name)
			continue
		}
		var args, callArgs []string
		bs := make([]binding, len(fn.params))
		for i, p := range fn.params {
			bs[i] = bind(p, handles)
			args = append(args, bs[i].name+" "+bs[i].cgoType)
			callArgs = append(callArgs, bs[i].arg)
		}
		errComm := "0"
		for i, p := range fn.params {
			if p.base == "MPI_Comm" && p.depth == 0 {
				errComm = bs[i].arg
				break
			}
		}
		// A file function raises its errors on the file's handler,
		// MPI_FILE_NULL's for MPI_File_open and MPI_File_delete as for
		// the rest: gompi opens no files.
		done := func(err string) string { return fmt.Sprintf("done(%q, %s, %s)", fn.name, errComm, err) }
		unsupported := fmt.Sprintf("unsupported(%s, %q)", errComm, fn.name)
		if strings.HasPrefix(fn.name, "MPI_File_") {
			done = func(err string) string { return fmt.Sprintf("doneFile(%q, %s)", fn.name, err) }
			unsupported = fmt.Sprintf("unsupportedFile(%q)", fn.name)
		}
		impl := implName(fn.name)
		if _, ok := impls[impl]; !ok && strings.HasSuffix(fn.name, "_c") {
			if base := byName[strings.TrimSuffix(fn.name, "_c")]; base != nil {
				generic, ok := impls[implName(base.name)]
				if ok && (generic || goTypes(base) == goTypes(fn)) {
					impl = implName(base.name)
				}
			}
		}
		_, implemented := impls[impl]
		pname := "P" + fn.name
		if gatedInC[fn.name] {
			pname = "gompi_go_" + pname
		}
		cret := map[string]string{"int": "C.int", "double": "C.double", "MPI_Aint": "C.intptr_t"}[fn.ret]
		if _, ok := handles[fn.ret]; ok {
			cret = "C.uintptr_t"
		}
		fmt.Fprintf(&gb, "\n//export %s\nfunc %s(%s) %s {\n", pname, pname, strings.Join(args, ", "), cret)
		call := impl + "(" + strings.Join(callArgs, ", ") + ")"
		has := true
		switch {
		case strings.HasSuffix(fn.name, "_toint"):
			fmt.Fprintf(&gb, "\treturn C.int(%s)\n", bs[0].name)
		case strings.HasSuffix(fn.name, "_fromint"):
			fmt.Fprintf(&gb, "\treturn C.uintptr_t(%s)\n", bs[0].name)
		case !implemented:
			has = false
			if fn.ret != "int" {
				return g, fmt.Errorf("%s returns %s, not an error code, and capi has no %s to call", fn.name, fn.ret, impl)
			}
			// Its handle results are null, as a failed implemented
			// call leaves them; a handle it would free is left alone.
			if !strings.HasSuffix(fn.name, "_free") && !strings.HasSuffix(fn.name, "_close") {
				for i, p := range fn.params {
					if _, ok := handles[p.base]; ok && p.depth == 1 && !p.array {
						fmt.Fprintf(&gb, "\tif %s != nil {\n\t\t*%s = C.uintptr_t(%s)\n\t}\n", bs[i].name, bs[i].name, nulls[p.base])
					}
				}
			}
			fmt.Fprintf(&gb, "\treturn C.int(%s)\n", unsupported)
		case fn.ret == "int" && strings.HasPrefix(fn.name, "MPI_T_"):
			// The tools interface returns its codes and calls no error handler.
			fmt.Fprintf(&gb, "\treturn C.int(toolDone(%s))\n", call)
		case fn.ret == "int":
			var made []string
			for i, p := range fn.params {
				checked := mustPoint(fn.name, p, handles)
				if checked {
					fmt.Fprintf(&gb, "\tif %s == nil {\n\t\treturn C.int(%s)\n\t}\n", bs[i].name, done(fmt.Sprintf("nullArg(%q)", p.name)))
				}
				if madeHandle(p, handles) {
					cond := "err != nil"
					if !checked {
						cond += " && " + bs[i].name + " != nil"
					}
					made = append(made, fmt.Sprintf("\tif %s {\n\t\t*%s = C.uintptr_t(%s)\n\t}\n", cond, bs[i].name, nulls[p.base]))
				}
			}
			if len(made) == 0 {
				fmt.Fprintf(&gb, "\treturn C.int(%s)\n", done(call))
				break
			}
			fmt.Fprintf(&gb, "\terr := %s\n%s\treturn C.int(%s)\n", call, strings.Join(made, ""), done("err"))
		default:
			fmt.Fprintf(&gb, "\treturn %s(%s)\n", cret, call)
		}
		gb.WriteString("}\n")
		if has {
			g.implemented = append(g.implemented, fn.name)
		} else {
			g.unsupported = append(g.unsupported, fn.name)
		}

		if wrappedInC[fn.name] {
			continue
		}
		var names []string
		for _, p := range fn.params {
			names = append(names, p.name)
		}
		fmt.Fprintf(&cb, "\n#pragma weak %s\n%s { GOMPI_CALL(%s, P%s(%s)); }\n", fn.name, prototype(fn, ""), fn.ret, fn.name, strings.Join(names, ", "))
	}
	g.goSrc, g.weakC, g.constSrc = gb.String(), cb.String(), handleConsts(a, handles)
	sort.Strings(g.implemented)
	sort.Strings(g.unsupported)
	return g, nil
}

// handleConsts declares the predefined handles in Go, with their C names
// and their handle types.
func handleConsts(a *abi, handles map[string]string) string {
	var b strings.Builder
	b.WriteString(`// Code generated by internal/abigen from capi/mpi.abi; DO NOT EDIT.

package main

// The predefined handles.
const (
`)
	for _, it := range a.items {
		if it.kind != "handle" {
			continue
		}
		for _, v := range it.values {
			if v[0] == "alias" {
				fmt.Fprintf(&b, "\t%s = %s\n", v[1], v[2])
				continue
			}
			fmt.Fprintf(&b, "\t%s %s = %s\n", v[0], handles[it.fields[0]], v[1])
		}
	}
	b.WriteString(")\n\n// typeNames are the predefined datatypes' names, for MPI_Type_get_name.\nvar typeNames = map[Datatype]string{\n")
	for _, it := range a.items {
		if it.kind == "handle" && it.fields[0] == "MPI_Datatype" {
			for _, v := range it.values {
				if v[0] != "alias" && v[0] != "MPI_DATATYPE_NULL" {
					fmt.Fprintf(&b, "\t%s: %q,\n", v[0], v[0])
				}
			}
		}
	}
	b.WriteString("}\n")
	return b.String()
}
