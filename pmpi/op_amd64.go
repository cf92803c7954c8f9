package pmpi

import "golang.org/x/sys/cpu"

// The predefined operations on whole 64-byte blocks in vector
// instructions: SSE2, which every amd64 processor has, and AVX2 where the
// processor has it (twice the width: a 64 KiB float32 sum 1.47 -> 0.8 us).
// SSE2 made a reduction of 1 MiB five times the Go loop's speed, where its
// time went mostly into the loop. Each combines n > 0 blocks: inout = in
// op inout, element by element, so results are the loops' bit for bit.
// Integer minimum and maximum need AVX2 (SSE2 has only two of the six);
// floating-point ones stay loops: MINPS does not order NaNs and signed
// zeros as Go's min does.

//go:noescape
func addPS(in, inout *byte, n int)

//go:noescape
func addPD(in, inout *byte, n int)

//go:noescape
func mulPS(in, inout *byte, n int)

//go:noescape
func mulPD(in, inout *byte, n int)

//go:noescape
func addB(in, inout *byte, n int)

//go:noescape
func addW(in, inout *byte, n int)

//go:noescape
func addL(in, inout *byte, n int)

//go:noescape
func addQ(in, inout *byte, n int)

//go:noescape
func and(in, inout *byte, n int)

//go:noescape
func or(in, inout *byte, n int)

//go:noescape
func xor(in, inout *byte, n int)

//go:noescape
func addPS2(in, inout *byte, n int)

//go:noescape
func addPD2(in, inout *byte, n int)

//go:noescape
func mulPS2(in, inout *byte, n int)

//go:noescape
func mulPD2(in, inout *byte, n int)

//go:noescape
func addB2(in, inout *byte, n int)

//go:noescape
func addW2(in, inout *byte, n int)

//go:noescape
func addL2(in, inout *byte, n int)

//go:noescape
func addQ2(in, inout *byte, n int)

//go:noescape
func and2(in, inout *byte, n int)

//go:noescape
func or2(in, inout *byte, n int)

//go:noescape
func xor2(in, inout *byte, n int)

//go:noescape
func minSB2(in, inout *byte, n int)

//go:noescape
func minUB2(in, inout *byte, n int)

//go:noescape
func minSW2(in, inout *byte, n int)

//go:noescape
func minUW2(in, inout *byte, n int)

//go:noescape
func minSL2(in, inout *byte, n int)

//go:noescape
func minUL2(in, inout *byte, n int)

//go:noescape
func maxSB2(in, inout *byte, n int)

//go:noescape
func maxUB2(in, inout *byte, n int)

//go:noescape
func maxSW2(in, inout *byte, n int)

//go:noescape
func maxUW2(in, inout *byte, n int)

//go:noescape
func maxSL2(in, inout *byte, n int)

//go:noescape
func maxUL2(in, inout *byte, n int)

// vectorOp returns c on dt with its whole blocks in vector instructions
// and the rest in scalar, or nil if c on dt has no vector form.
func vectorOp(c opCode, dt Datatype, scalar func(in, inout []byte)) func(in, inout []byte) {
	return vectorOpIn(c, dt, scalar, hasAVX2())
}

// vectorOpIn is vectorOp with AVX2 or without.
func vectorOpIn(c opCode, dt Datatype, scalar func(in, inout []byte), avx2 bool) func(in, inout []byte) {
	k := blockKernels(c, dt)
	blocks := k.sse2
	if avx2 && k.avx2 != nil {
		blocks = k.avx2
	}
	if blocks == nil || scalar == nil {
		return nil
	}
	return func(in, inout []byte) {
		in = in[:len(inout)] // the same elements: a short in panics here rather than being read past
		n := len(inout) / 64 // elements of 1 to 16 bytes never straddle a block
		if n > 0 {
			blocks(&in[0], &inout[0], n)
		}
		if done := n * 64; done < len(inout) {
			scalar(in[done:], inout[done:])
		}
	}
}

// kernels are an operation's block functions: in SSE2 (nil where it has
// none) and in AVX2.
type kernels struct{ sse2, avx2 func(in, inout *byte, n int) }

func blockKernels(c opCode, dt Datatype) kernels {
	switch c {
	case opSum:
		switch dt {
		case Float32, Complex64:
			return kernels{addPS, addPS2}
		case Float64, Complex128:
			return kernels{addPD, addPD2}
		case Byte, Int8:
			return kernels{addB, addB2}
		case Int16, Uint16:
			return kernels{addW, addW2}
		case Int32, Uint32:
			return kernels{addL, addL2}
		case Int64, Uint64:
			return kernels{addQ, addQ2}
		}
	case opProd:
		switch dt {
		case Float32:
			return kernels{mulPS, mulPS2}
		case Float64:
			return kernels{mulPD, mulPD2}
		}
	case opBand, opBor, opBxor:
		if dt.kind() != kindInt {
			return kernels{}
		}
		switch c {
		case opBand:
			return kernels{and, and2}
		case opBor:
			return kernels{or, or2}
		default:
			return kernels{xor, xor2}
		}
	case opMin, opMax:
		for _, k := range intOrder {
			switch {
			case k.dt != dt:
			case c == opMin:
				return kernels{avx2: k.min}
			default:
				return kernels{avx2: k.max}
			}
		}
	}
	return kernels{}
}

func hasAVX2() bool { return cpu.X86.HasAVX2 }

// intOrder are AVX2's integer minimum and maximum by datatype (signed and
// unsigned compare differently; 64-bit ones need AVX-512).
var intOrder = [...]struct {
	dt       Datatype
	min, max func(in, inout *byte, n int)
}{
	{Byte, minUB2, maxUB2},
	{Int8, minSB2, maxSB2},
	{Int16, minSW2, maxSW2},
	{Uint16, minUW2, maxUW2},
	{Int32, minSL2, maxSL2},
	{Uint32, minUL2, maxUL2},
}
