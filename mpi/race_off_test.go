//go:build !race

package mpi_test

const raceBuild = false
