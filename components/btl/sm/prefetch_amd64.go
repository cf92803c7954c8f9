package sm

// prefetchLines asks the processor to bring the lines from p to p+n into
// its cache, without waiting for them.
//
//go:noescape
func prefetchLines(p *byte, n int)

// prefetchwLines prefetches the lines from p to p+n, to write them: each
// is taken away from the caches that hold it, without waiting.
//
//go:noescape
func prefetchwLines(p *byte, n int)
