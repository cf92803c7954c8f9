#include "textflag.h"

// func callers(pcs []uintptr) int
//
// With no frame of its own, BP here is the frame pointer of the Go
// function that called it: each frame holds the caller's frame pointer at
// 0(BP) and the return address into the caller at 8(BP). The walk stops at
// the end of pcs or at the outermost frame, whose saved pointer is zero.
TEXT ·callers(SB),NOSPLIT,$0-32
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
