// Package profpb holds the generated protobuf and gRPC code of the Tool
// service an out-of-process profiling tool serves (prof.proto), and the
// prof framework's API version, which both the host (frameworks/prof) and
// the plugin SDK (frameworks/prof/profplugin) import from here without
// pulling in pmpi. Do not edit the *.pb.go files; run make generate.
package profpb

//go:generate sh ../../../internal/protogen/protoc.sh . prof.proto

// The prof framework's API version. A component built against another
// major version is refused.
const (
	APIMajor = 1
	APIMinor = 1
	APIPatch = 0
)
