#include "textflag.h"

// func copyStreaming(dst, src *byte, n int)
//
// n is a multiple of 64 and dst is 64-byte aligned. MOVNTO (MOVNTDQ)
// writes around the caches; the SFENCE orders those stores before any
// later one, such as a plain store that publishes the record.
TEXT ·copyStreaming(SB),NOSPLIT,$0-24
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	n+16(FP), CX
	TESTQ	CX, CX
	JLE	done
loop:
	MOVOU	0(SI), X0
	MOVOU	16(SI), X1
	MOVOU	32(SI), X2
	MOVOU	48(SI), X3
	MOVNTO	X0, 0(DI)
	MOVNTO	X1, 16(DI)
	MOVNTO	X2, 32(DI)
	MOVNTO	X3, 48(DI)
	ADDQ	$64, SI
	ADDQ	$64, DI
	SUBQ	$64, CX
	JG	loop
	SFENCE
done:
	RET
