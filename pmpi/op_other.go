//go:build !amd64

package pmpi

// vectorOp has no vector forms off amd64: the Go loops serve.
func vectorOp(opCode, Datatype, func(in, inout []byte)) func(in, inout []byte) { return nil }

func vectorOpIn(opCode, Datatype, func(in, inout []byte), bool) func(in, inout []byte) { return nil }

func hasAVX2() bool { return false }
