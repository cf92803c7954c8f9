//go:build !amd64

package sm

import "unsafe"

func copyString(dst, src *byte, n int) {
	copy(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}
