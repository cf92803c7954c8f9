//go:build !race

package sm

const raceBuild = false
