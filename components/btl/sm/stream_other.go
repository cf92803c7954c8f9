//go:build !amd64

package sm

import "unsafe"

func copyStreaming(dst, src *byte, n int) {
	copy(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}

const streaming = false
