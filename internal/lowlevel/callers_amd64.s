//go:build !purego

#include "textflag.h"

// func Callers(pcs []uintptr) int
//
// With no frame of its own, BP here is the frame pointer of the Go
// function that called it: Go calls an assembly function directly, from
// any package, with no ABI wrapper in between (the test from another
// package checks it). Each frame holds its caller's frame pointer at
// 0(BP) and its return address into that caller at 8(BP). The walk stops
// at the end of pcs or at the outermost frame, whose saved pointer is zero.
TEXT ·Callers(SB),NOSPLIT,$0-32
	MOVQ	pcs_base+0(FP), DI
	MOVQ	pcs_len+8(FP), CX
	MOVQ	BP, AX
	XORQ	DX, DX
loop:
	CMPQ	DX, CX
	JGE	done
	TESTQ	AX, AX
	JZ	done
	MOVQ	8(AX), BX
	MOVQ	BX, (DI)(DX*8)
	INCQ	DX
	MOVQ	0(AX), AX
	JMP	loop
done:
	MOVQ	DX, ret+24(FP)
	RET
