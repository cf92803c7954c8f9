#!/bin/sh
# protoc.sh DIR FILE.proto... regenerates the Go protobuf and gRPC code of
# the .proto files in DIR, next to them (FILE.pb.go, FILE_grpc.pb.go).
#
# Every tool is pinned, since each writes its version into the files'
# headers and a different one changes the generated code:
#   - protoc at PROTOC_VERSION, Debian bookworm's protobuf-compiler
#     (apt-get install -y protobuf-compiler); PROTOC names another binary.
#     A protoc of another version is refused rather than used.
#   - protoc-gen-go at the google.golang.org/protobuf version in go.mod,
#     so that the code matches the runtime it is linked with;
#   - protoc-gen-go-grpc at GRPC_PLUGIN_VERSION. That plugin is its own
#     module with its own version numbers; the code it generates needs
#     grpc >= 1.64 (SupportPackageIsVersion9), which go.mod's grpc
#     satisfies.
# The Go plugins run through go run module@version, from the module proxy
# and go's cache, whatever is installed in GOPATH/bin.
set -eu

PROTOC_VERSION=3.21.12
GRPC_PLUGIN_VERSION=v1.6.2

[ $# -ge 2 ] || { echo "usage: protoc.sh DIR FILE.proto..." >&2; exit 2; }
dir=$1
shift
PROTOC=${PROTOC:-protoc}
command -v "$PROTOC" >/dev/null 2>&1 || {
	echo "protoc.sh: $PROTOC not found; install protoc $PROTOC_VERSION (Debian bookworm: apt-get install -y protobuf-compiler), or name it with PROTOC=" >&2
	exit 1
}
got=$("$PROTOC" --version 2>&1 | head -n 1) || true
if [ "$got" != "libprotoc $PROTOC_VERSION" ]; then
	echo "protoc.sh: $(command -v "$PROTOC") is $got; the generated code is made with libprotoc $PROTOC_VERSION" >&2
	echo "protoc.sh: install that version (Debian bookworm: apt-get install -y protobuf-compiler), or name it with PROTOC=" >&2
	exit 1
fi

PB_VERSION=$(go list -m -f '{{.Version}}' google.golang.org/protobuf)

# protoc runs plugins as executables: each is a two-line script around go run.
plugins=$(mktemp -d)
trap 'rm -rf "$plugins"' EXIT
printf '#!/bin/sh\nexec go run google.golang.org/protobuf/cmd/protoc-gen-go@%s "$@"\n' "$PB_VERSION" >"$plugins/protoc-gen-go"
printf '#!/bin/sh\nexec go run google.golang.org/grpc/cmd/protoc-gen-go-grpc@%s "$@"\n' "$GRPC_PLUGIN_VERSION" >"$plugins/protoc-gen-go-grpc"
chmod +x "$plugins/protoc-gen-go" "$plugins/protoc-gen-go-grpc"

cd "$dir"
GOFLAGS= "$PROTOC" --proto_path=. \
	--plugin=protoc-gen-go="$plugins/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$plugins/protoc-gen-go-grpc" \
	--go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	"$@"
