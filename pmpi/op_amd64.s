#include "textflag.h"

// BLOCKS(OP) combines n > 0 blocks of 64 bytes at in and inout, 16 bytes
// per instruction: inout = in OP inout. Element by element, as the Go loops
// do: no sums are reordered, so results are bit for bit the same.
#define BLOCKS(OP) \
	MOVQ in+0(FP), SI \
	MOVQ inout+8(FP), DI \
	MOVQ n+16(FP), CX \
loop: \
	MOVUPS (SI), X0 \
	MOVUPS 16(SI), X1 \
	MOVUPS 32(SI), X2 \
	MOVUPS 48(SI), X3 \
	MOVUPS (DI), X4 \
	MOVUPS 16(DI), X5 \
	MOVUPS 32(DI), X6 \
	MOVUPS 48(DI), X7 \
	OP X4, X0 \
	OP X5, X1 \
	OP X6, X2 \
	OP X7, X3 \
	MOVUPS X0, (DI) \
	MOVUPS X1, 16(DI) \
	MOVUPS X2, 32(DI) \
	MOVUPS X3, 48(DI) \
	ADDQ $64, SI \
	ADDQ $64, DI \
	DECQ CX \
	JNE loop \
	RET

// func addPS(in, inout *byte, n int)
TEXT ·addPS(SB), NOSPLIT, $0-24
	BLOCKS(ADDPS)

// func addPD(in, inout *byte, n int)
TEXT ·addPD(SB), NOSPLIT, $0-24
	BLOCKS(ADDPD)

// func mulPS(in, inout *byte, n int)
TEXT ·mulPS(SB), NOSPLIT, $0-24
	BLOCKS(MULPS)

// func mulPD(in, inout *byte, n int)
TEXT ·mulPD(SB), NOSPLIT, $0-24
	BLOCKS(MULPD)

// func addB(in, inout *byte, n int)
TEXT ·addB(SB), NOSPLIT, $0-24
	BLOCKS(PADDB)

// func addW(in, inout *byte, n int)
TEXT ·addW(SB), NOSPLIT, $0-24
	BLOCKS(PADDW)

// func addL(in, inout *byte, n int)
TEXT ·addL(SB), NOSPLIT, $0-24
	BLOCKS(PADDL)

// func addQ(in, inout *byte, n int)
TEXT ·addQ(SB), NOSPLIT, $0-24
	BLOCKS(PADDQ)
