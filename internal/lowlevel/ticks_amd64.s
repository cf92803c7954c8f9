//go:build !purego

#include "textflag.h"

// func Ticks() int64
TEXT ·Ticks(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET
