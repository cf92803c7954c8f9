package shm

//go:noescape
func prefetchLines(p *byte, n int)

//go:noescape
func prefetchwLines(p *byte, n int)

//go:noescape
func copyString(dst, src *byte, n int)

//go:noescape
func copyNT(dst, src *byte, n int)
