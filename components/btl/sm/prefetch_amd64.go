package sm

// prefetch asks the processor to bring the line at p into its cache,
// without waiting for it.
//
//go:noescape
func prefetch(p *byte)

// prefetchLines prefetches the lines from p to p+n, to read them.
//
//go:noescape
func prefetchLines(p *byte, n int)

// prefetchwLines prefetches the lines from p to p+n, to write them: each
// is taken away from the caches that hold it, without waiting.
//
//go:noescape
func prefetchwLines(p *byte, n int)
