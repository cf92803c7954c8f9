package lowlevel

import "runtime"

// GoroutineID returns the calling goroutine's id, read from the first line
// of its stack trace ("goroutine 18 [running]:"): Go offers no cheaper
// way, and it costs microseconds. For naming a goroutine once; on a hot
// path, GoroutineKey tells goroutines apart.
func GoroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
