//go:build !amd64 || race || purego

package lowlevel

import "sync/atomic"

// Release stores are sync/atomic's here. Under the race detector they
// must be: it does not see an assembly store, so it would not see the
// ordering either.

func storeRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

func storeRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
