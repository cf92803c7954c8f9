# gompi's build. "make demo" and "make test" are the two commands a newcomer needs.
GO          ?= go
BIN         := bin
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build test test-short lint docs demo generate clean

all: build

# Every command and example into ./bin/.
build:
	$(GO) build -o $(BIN)/ ./cmd/... ./examples/...

# The whole suite, with the race detector, as CI runs it.
test:
	$(GO) test -race -count=1 -timeout 15m ./...

# Unit tests only: skips the multi-process suites.
test-short:
	$(GO) test -short -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# Regenerates the generated documentation (docs/parameters.md).
docs:
	$(GO) test ./internal/paramdoc -run TestParametersDocIsCurrent -update

# Four ranks on this machine: each says which transport (self or tcp)
# reaches each peer, then a token goes round the ring and a ping-pong runs.
demo: build
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/hello
	$(BIN)/gompirun -np 4 --oversubscribe --tag-output $(BIN)/ring -laps 1000
	$(BIN)/gompirun -np 2 $(BIN)/pingpong -m 0:1048576 -i 200

clean:
	rm -rf $(BIN)

# Regenerates the committed protobuf/gRPC stubs of the job runtime (needs
# Debian's protobuf-compiler; the Go plugins come from the module proxy).
generate:
	internal/rte/rtepb/generate.sh
