package main

/*
#include <stdint.h>
uintptr_t gompi_caller_pc(void);
int gompi_caller_object(uintptr_t pc, const char **file, uintptr_t *base, const char **sym, uintptr_t *symaddr);
*/
import "C"

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path/filepath"
)

// callerPC is the return address of the C call the calling thread is in
// (caller.h), 0 if none.
func callerPC() uintptr { return uintptr(C.gompi_caller_pc()) }

// callerSite names where a C program called: file.c:line from the line
// tables of the object holding pc, or a function and offset where it has
// none (built without -g). "" if no object holds pc.
func callerSite(pc uintptr) string {
	var (
		file, sym     *C.char
		base, symAddr C.uintptr_t
	)
	at := pc - 1 // inside the call instruction, not after it
	if C.gompi_caller_object(C.uintptr_t(at), &file, &base, &sym, &symAddr) == 0 {
		return ""
	}
	obj := C.GoString(file)
	if site, ok := lineOf(obj, uintptr(base), at); ok {
		return site
	}
	if sym == nil {
		return fmt.Sprintf("%s+%#x", filepath.Base(obj), pc-uintptr(base))
	}
	return fmt.Sprintf("%s+%#x in %s", C.GoString(sym), pc-uintptr(symAddr), filepath.Base(obj))
}

// lineOf finds pc's file and line in the DWARF line tables of obj, loaded
// at base. The main program's path may be as it was run, so
// /proc/self/exe stands in when it does not open.
func lineOf(obj string, base, pc uintptr) (string, bool) {
	f, err := elf.Open(obj)
	if err != nil {
		if f, err = elf.Open("/proc/self/exe"); err != nil {
			return "", false
		}
	}
	defer f.Close()
	addr := uint64(pc)
	if f.Type == elf.ET_DYN { // position-independent: its addresses are offsets from base
		addr -= uint64(base)
	}
	d, err := f.DWARF()
	if err != nil {
		return "", false
	}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			return "", false
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		r.SkipChildren()
		ranges, err := d.Ranges(cu)
		if err != nil || !covers(ranges, addr) {
			continue
		}
		lr, err := d.LineReader(cu)
		if err != nil || lr == nil {
			continue
		}
		var e dwarf.LineEntry
		if lr.SeekPC(addr, &e) == nil && e.File != nil {
			return fmt.Sprintf("%s:%d", filepath.Base(e.File.Name), e.Line), true
		}
	}
}

func covers(ranges [][2]uint64, addr uint64) bool {
	for _, r := range ranges {
		if r[0] <= addr && addr < r[1] {
			return true
		}
	}
	return false
}
