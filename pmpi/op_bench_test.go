package pmpi

import (
	"fmt"
	"testing"
)

// BenchmarkVectorSum is a float32 sum's vector form, in SSE2 and in AVX2,
// on a block that stays in the cache and on one that does not.
func BenchmarkVectorSum(b *testing.B) {
	for _, avx2 := range []bool{false, true} {
		for _, n := range []int{16 << 10, 64 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("avx2=%v/%d", avx2, n), func(b *testing.B) {
				f := vectorOpIn(opSum, Float32, scalarOp(opSum, Float32), avx2)
				if f == nil || avx2 && !hasAVX2() {
					b.Skip("no such vector form here")
				}
				in, inout := make([]byte, n), make([]byte, n)
				b.SetBytes(int64(n))
				for b.Loop() {
					f(in, inout)
				}
			})
		}
	}
}
