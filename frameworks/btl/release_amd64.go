//go:build !race

package btl

// A plain MOV: the Go compiler does not move memory accesses across a
// call to assembly, and the processor keeps stores in order.

//go:noescape
func storeRelease64(p *uint64, v uint64)

//go:noescape
func storeRelease32(p *uint32, v uint32)
