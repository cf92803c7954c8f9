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

// BLOCKS2(OP) is BLOCKS in AVX2, 32 bytes per instruction.
#define BLOCKS2(OP) \
	MOVQ in+0(FP), SI \
	MOVQ inout+8(FP), DI \
	MOVQ n+16(FP), CX \
loop: \
	VMOVDQU (SI), Y0 \
	VMOVDQU 32(SI), Y1 \
	OP (DI), Y0, Y0 \
	OP 32(DI), Y1, Y1 \
	VMOVDQU Y0, (DI) \
	VMOVDQU Y1, 32(DI) \
	ADDQ $64, SI \
	ADDQ $64, DI \
	DECQ CX \
	JNE loop \
	VZEROUPPER \
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

// func and(in, inout *byte, n int)
TEXT ·and(SB), NOSPLIT, $0-24
	BLOCKS(PAND)

// func or(in, inout *byte, n int)
TEXT ·or(SB), NOSPLIT, $0-24
	BLOCKS(POR)

// func xor(in, inout *byte, n int)
TEXT ·xor(SB), NOSPLIT, $0-24
	BLOCKS(PXOR)

// func addPS2(in, inout *byte, n int)
TEXT ·addPS2(SB), NOSPLIT, $0-24
	BLOCKS2(VADDPS)

// func addPD2(in, inout *byte, n int)
TEXT ·addPD2(SB), NOSPLIT, $0-24
	BLOCKS2(VADDPD)

// func mulPS2(in, inout *byte, n int)
TEXT ·mulPS2(SB), NOSPLIT, $0-24
	BLOCKS2(VMULPS)

// func mulPD2(in, inout *byte, n int)
TEXT ·mulPD2(SB), NOSPLIT, $0-24
	BLOCKS2(VMULPD)

// func addB2(in, inout *byte, n int)
TEXT ·addB2(SB), NOSPLIT, $0-24
	BLOCKS2(VPADDB)

// func addW2(in, inout *byte, n int)
TEXT ·addW2(SB), NOSPLIT, $0-24
	BLOCKS2(VPADDW)

// func addL2(in, inout *byte, n int)
TEXT ·addL2(SB), NOSPLIT, $0-24
	BLOCKS2(VPADDD)

// func addQ2(in, inout *byte, n int)
TEXT ·addQ2(SB), NOSPLIT, $0-24
	BLOCKS2(VPADDQ)

// func and2(in, inout *byte, n int)
TEXT ·and2(SB), NOSPLIT, $0-24
	BLOCKS2(VPAND)

// func or2(in, inout *byte, n int)
TEXT ·or2(SB), NOSPLIT, $0-24
	BLOCKS2(VPOR)

// func xor2(in, inout *byte, n int)
TEXT ·xor2(SB), NOSPLIT, $0-24
	BLOCKS2(VPXOR)

// func minSB2(in, inout *byte, n int)
TEXT ·minSB2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINSB)

// func minUB2(in, inout *byte, n int)
TEXT ·minUB2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINUB)

// func minSW2(in, inout *byte, n int)
TEXT ·minSW2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINSW)

// func minUW2(in, inout *byte, n int)
TEXT ·minUW2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINUW)

// func minSL2(in, inout *byte, n int)
TEXT ·minSL2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINSD)

// func minUL2(in, inout *byte, n int)
TEXT ·minUL2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMINUD)

// func maxSB2(in, inout *byte, n int)
TEXT ·maxSB2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXSB)

// func maxUB2(in, inout *byte, n int)
TEXT ·maxUB2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXUB)

// func maxSW2(in, inout *byte, n int)
TEXT ·maxSW2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXSW)

// func maxUW2(in, inout *byte, n int)
TEXT ·maxUW2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXUW)

// func maxSL2(in, inout *byte, n int)
TEXT ·maxSL2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXSD)

// func maxUL2(in, inout *byte, n int)
TEXT ·maxUL2(SB), NOSPLIT, $0-24
	BLOCKS2(VPMAXUD)
