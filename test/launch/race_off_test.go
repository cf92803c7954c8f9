//go:build !race

package launch

const raceBuild = false
