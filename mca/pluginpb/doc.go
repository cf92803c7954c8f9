// Package pluginpb holds the generated protobuf and gRPC code of the
// lifecycle service every out-of-process component serves
// (component.proto). Do not edit the *.pb.go files; run make generate.
package pluginpb

//go:generate sh ../../internal/protogen/protoc.sh . component.proto
