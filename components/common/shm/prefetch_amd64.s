#include "textflag.h"

// func prefetchLines(p *byte, n int)
TEXT ·prefetchLines(SB),NOSPLIT,$0-16
	MOVQ	p+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	rdone
rloop:
	PREFETCHT0	(AX)
	ADDQ	$64, AX
	SUBQ	$64, CX
	JG	rloop
rdone:
	RET

// func prefetchwLines(p *byte, n int)
TEXT ·prefetchwLines(SB),NOSPLIT,$0-16
	MOVQ	p+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	wdone
wloop:
	// PREFETCHW (AX), which Go's assembler does not know; a NOP on
	// processors without it.
	BYTE	$0x0F; BYTE $0x0D; BYTE $0x08
	ADDQ	$64, AX
	SUBQ	$64, CX
	JG	wloop
wdone:
	RET
