//go:build !race

package pml

const raceBuild = false
