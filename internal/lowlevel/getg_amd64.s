//go:build !purego

#include "textflag.h"

// func getg() uintptr
//
// Assembly runs under ABI0, where R14 need not hold g as it does under
// ABIInternal; the runtime keeps g in thread-local storage as well, which
// is where (TLS) reads it.
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET
