#!/bin/sh
# protoc.sh DIR FILE.proto... regenerates the Go protobuf and gRPC code of
# the .proto files in DIR, next to them (FILE.pb.go, FILE_grpc.pb.go).
#
# Needs protoc (Debian: apt-get install -y protobuf-compiler). The Go plugins
# are installed into $(go env GOPATH)/bin when missing or at another version:
# protoc-gen-go at the google.golang.org/protobuf version in go.mod, and
# protoc-gen-go-grpc at GRPC_PLUGIN_VERSION. That plugin is its own module
# with its own version numbers; the code it generates needs grpc >= 1.64
# (SupportPackageIsVersion9), which go.mod's grpc satisfies.
set -eu

GRPC_PLUGIN_VERSION=v1.6.2

[ $# -ge 2 ] || { echo "usage: protoc.sh DIR FILE.proto..." >&2; exit 2; }
dir=$1
shift
command -v protoc >/dev/null 2>&1 || {
	echo "protoc.sh: protoc not found; install it (Debian: apt-get install -y protobuf-compiler)" >&2
	exit 1
}

PB_VERSION=$(go list -m -f '{{.Version}}' google.golang.org/protobuf)
GOBIN=$(go env GOPATH)/bin
PATH=$GOBIN:$PATH
export PATH

if [ "$(protoc-gen-go --version 2>/dev/null)" != "protoc-gen-go $PB_VERSION" ]; then
	GOFLAGS= GOBIN=$GOBIN go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PB_VERSION"
fi
if [ "$(protoc-gen-go-grpc --version 2>/dev/null)" != "protoc-gen-go-grpc ${GRPC_PLUGIN_VERSION#v}" ]; then
	GOFLAGS= GOBIN=$GOBIN go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$GRPC_PLUGIN_VERSION"
fi

cd "$dir"
protoc --proto_path=. \
	--go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	"$@"
