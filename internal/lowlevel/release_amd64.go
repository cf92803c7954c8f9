//go:build amd64 && !race && !purego

package lowlevel

// A plain MOV (release_amd64.s): the Go compiler moves no memory access
// across a call to assembly, and x86 keeps a processor's stores in order.

//go:noescape
func storeRelease64(p *uint64, v uint64)

//go:noescape
func storeRelease32(p *uint32, v uint32)
