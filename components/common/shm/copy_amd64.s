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
