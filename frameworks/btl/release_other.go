//go:build !amd64 || race

package btl

import "sync/atomic"

func storeRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

func storeRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
