// Package rtepb holds the generated protobuf and gRPC code of the runtime
// control plane (runtime.proto) shared by package rte and gompirun's job
// server. Do not edit the *.pb.go files; run make generate.
package rtepb

//go:generate sh ../../protogen/protoc.sh . runtime.proto
