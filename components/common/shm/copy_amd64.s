#include "textflag.h"

// func copyString(dst, src *byte, n int)
//
// REP MOVSB writes whole lines without reading them first. The SFENCE
// orders its stores, which a string instruction may make out of order,
// before any later one, such as a plain store that publishes a record.
TEXT ·copyString(SB),NOSPLIT,$0-24
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	n+16(FP), CX
	REP;	MOVSB
	SFENCE
	RET

// func copyNT(dst, src *byte, n int)
//
// Non-temporal stores (MOVNTDQ) write whole lines around the caches, so
// no store waits for a line that another processor holds; dst is 16-byte
// aligned and n a multiple of 64. The SFENCE orders them before any later
// store, as the string copy's.
TEXT ·copyNT(SB),NOSPLIT,$0-24
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	n+16(FP), CX
	TESTQ	CX, CX
	JLE	ntdone
ntloop:
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
	JG	ntloop
ntdone:
	SFENCE
	RET
