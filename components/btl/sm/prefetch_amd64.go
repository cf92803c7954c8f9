package sm

// prefetch asks the processor to bring the line at p into its cache,
// without waiting for it.
//
//go:noescape
func prefetch(p *byte)
