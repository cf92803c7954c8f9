# gompi's build. "make demo" and "make test" are the two commands a newcomer needs.
GO          ?= go
BIN         := bin
# make build's C library and header, beside bin/ so that bin/gompicc finds them.
LIB         := lib
INCLUDE     := include
ABI_SONAME  := libmpi_abi.so.1
# Where make install puts gompi: $(DESTDIR)$(PREFIX)/bin, lib, include.
PREFIX      ?= /usr/local
DESTDIR     ?=
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build c-library start-archive install test test-short test-long test-programs lint check-generated deadcode docs demo generate generate-prof generate-abi clean bench bench-compare pgo

all: build

# Every command and example into ./bin/ (gompicxx a hard link to gompicc);
# the example out-of-process components (examples/plugins/mca_*) into
# ./bin/plugins/, a directory to put on mca_base_component_path; and gompi's
# C library (see c-library).
# TAGS=pmix adds the pmix ess component, which links OpenPMIx (cgo).
build: c-library
	$(GO) build $(if $(TAGS),-tags $(TAGS)) -o $(BIN)/ ./cmd/... $$($(GO) list ./examples/... | grep -v /examples/plugins/) ./bench/cmd/...
	ln -f $(BIN)/gompicc $(BIN)/gompicxx
	$(GO) build $(if $(TAGS),-tags $(TAGS)) -o $(BIN)/plugins/ ./examples/plugins/...

# gompi's C library comes with libgompi_start.a, which gompicc links into programs
# with -Wl,--wrap=main so that main runs as a call from the library
# (capi/start/start.c); make start-archive builds it alone into $(LIB).
START_ARCHIVE := libgompi_start.a
start-archive:
	mkdir -p $(LIB)
	$(CC) -O2 -fPIC -c capi/start/start.c -o $(LIB)/start.o
	ar rcs $(LIB)/$(START_ARCHIVE) $(LIB)/start.o
	rm $(LIB)/start.o

# gompi's C library, libmpi_abi (the MPI-5.0 standard ABI, built from
# capi/), as ./lib/libmpi_abi.so.1 with the libmpi_abi.so link that -lmpi_abi
# finds, and its header as ./include/mpi.h: bin/gompicc compiles against
# ../include and ../lib. The Go build's own header of the exports is not
# for programs and goes. It needs cgo, so a C compiler; without one this
# says so and the rest of make build goes on. Go's runtime preempts a
# goroutine that runs long by sending its thread SIGURG, which a C program
# may handle itself (PETSc's handler for every signal aborts the job): the
# library's default is GODEBUG=asyncpreemptoff=1, and its goroutines yield
# at function calls instead.
C_LIBRARY_GODEBUG := asyncpreemptoff=1
c-library:
	@if [ "$$($(GO) env CGO_ENABLED)" != 1 ]; then \
		echo "no C compiler for cgo (go env CGO_ENABLED is not 1): gompi's C library ($(LIB)/$(ABI_SONAME), $(INCLUDE)/mpi.h) is not built"; \
		exit 0; \
	fi; \
	set -ex; \
	mkdir -p $(LIB) $(INCLUDE); \
	$(GO) build $(if $(TAGS),-tags $(TAGS)) -buildmode=c-shared -ldflags='-w -X=runtime.godebugDefault=$(C_LIBRARY_GODEBUG) -extldflags=-Wl,-soname,$(ABI_SONAME)' -o $(LIB)/$(ABI_SONAME) ./capi; \
	rm -f $(LIB)/$(basename $(ABI_SONAME)).h; \
	ln -sf $(ABI_SONAME) $(LIB)/libmpi_abi.so; \
	$(MAKE) --no-print-directory start-archive LIB=$(LIB); \
	cp capi/include/mpi.h $(INCLUDE)/mpi.h

# make build, then under $(DESTDIR)$(PREFIX): the commands in bin/, the C
# library in lib/ and its header in include/ (when make build made them),
# and the example out-of-process components in lib/gompi/, the first
# directory of mca_base_component_path's default ($prefix/lib/gompi): an
# installed gompirun finds them, and gives its ranks its prefix.
INSTALL_COMMANDS := gompirun gompi-reaper gompi-daemon gompi_info gompicc gompi-wrappergen
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gompi
	install -m 755 $(INSTALL_COMMANDS:%=$(BIN)/%) $(DESTDIR)$(PREFIX)/bin/
	ln -f $(DESTDIR)$(PREFIX)/bin/gompicc $(DESTDIR)$(PREFIX)/bin/gompicxx
	install -m 755 $(BIN)/plugins/mca_* $(DESTDIR)$(PREFIX)/lib/gompi/
	@if [ ! -e $(LIB)/$(ABI_SONAME) ]; then echo "gompi's C library is not built: not installing it"; exit 0; fi; \
	set -ex; \
	install -d $(DESTDIR)$(PREFIX)/include; \
	install -m 755 $(LIB)/$(ABI_SONAME) $(DESTDIR)$(PREFIX)/lib/; \
	install -m 644 $(LIB)/$(START_ARCHIVE) $(DESTDIR)$(PREFIX)/lib/; \
	ln -sf $(ABI_SONAME) $(DESTDIR)$(PREFIX)/lib/libmpi_abi.so; \
	install -m 644 $(INCLUDE)/mpi.h $(DESTDIR)$(PREFIX)/include/

# Two tiers. make test-short is the unit tier: every package's own tests,
# no gompirun job (the multi-process suites skip themselves under -short).
# make test is the whole suite, as CI runs it, in three steps:
#  - every program a suite runs is built once, into $(TESTBIN), where
#    internal/jobtest takes them from (GOMPI_TEST_BIN): one compilation
#    and one link per program instead of one per suite; the C library,
#    which test/capi's C programs link, into $(TESTBIN)/lib;
#  - the packages' own tests and test/launch with the race detector
#    (test/launch builds gompirun with it too, so the launcher is checked
#    in real jobs), four packages at a time: much of the step is linking
#    and jobs that wait, and two at a time left a CPU idle (3.6 -> 3.0 min);
#  - without it, the suites whose test process only starts jobs of
#    programs built without it (test/coll, test/p2p, test/prof,
#    test/plugins, test/multihost, test/topo, test/attr, test/capi, and
#    test/cluster, which builds the hosts test/multihost runs on), and
#    the tests of the packages the race detector changes: the release
#    stores' users (internal/pml, components/btl/sm, components/coll/sm,
#    pmpi), since those stores (internal/lowlevel/release_amd64.s) build
#    only then (the C library's, capi, through test/capi's programs), and
#    the packages whose allocation checks skip themselves under it, its
#    sync.Pool dropping items on purpose (internal/pml,
#    components/btl/sm, mpi): internal/pml, components/coll/sm and mpi
#    cost the step 15 CPU-seconds;
#  - internal/lowlevel with -tags purego, its portable versions.
MODULE        := github.com/gompi/gompi
TESTBIN       := $(CURDIR)/$(BIN)/test
# Longest first: go test starts packages in this order, -p (the CPUs) at
# a time, so short ones fill the end instead of one long one running alone.
JOB_SUITES    := coll p2p multihost topo capi cluster prof plugins attr
PLAIN_PKGS    := $(JOB_SUITES:%=./test/%) ./components/btl/sm ./components/coll/sm ./internal/lowlevel ./internal/pml ./mpi ./pmpi
RACE_PKGS      = $$($(GO) list ./... $(JOB_SUITES:%=| grep -v -x $(MODULE)/test/%))
# The programs under testdata/ (which ./... does not match) in directory
# $(1), but for those in the directories $(2).
testdata_mains = $$(find $(1) -path ./bin -prune $(foreach d,$(2),-o -path $(d) -prune) -o -path '*/testdata/*' -name '*.go' -exec grep -l '^package main' {} + | xargs -n1 dirname | sort -u)
# Only the programs a suite runs (jobtest.Build says which one it missed):
# a link is 2.5 CPU-seconds. test/launch runs its own with the race
# detector only.
TEST_PROGRAMS  = ./cmd/gompirun ./cmd/gompi-reaper ./cmd/gompi-daemon ./cmd/gompi_info ./bench/cmd/gompi-bench \
	./examples/hello ./examples/heat ./examples/stencil ./examples/plugins/... $(call testdata_mains,.,./test/launch)
RACE_PROGRAMS  = ./cmd/gompirun ./cmd/gompi-reaper ./cmd/gompi-daemon $(call testdata_mains,./test/launch)
# Test binaries and the suites' programs without DWARF: a quarter less
# linking, and stack traces come from the symbol table, which stays.
TEST_LDFLAGS   = -ldflags=-w
# go test's own vet pass is off in make test: make lint runs every vet
# check over every package (CI runs it first), and the pass cost a fresh
# clone half a minute.
TEST_FLAGS     = $(TEST_LDFLAGS) -vet=off
# Every build make test (and test-short) makes, the race detector's apart,
# shares one compilation of each package:
#  - position-independent (-buildmode=pie), as the C library must be, so
#    that the library does not compile the whole tree again;
#  - without profile-guided optimisation (-pgo=off): a main package with a
#    default.pgo (gompi-bench's, capi's) compiles every package it imports
#    again with its profile, in each mode, and tests are not benchmarks.
# Through GOFLAGS, the go commands the tests run do the same. The race
# detector does not support PIE: its steps say -buildmode=default.
test test-programs test-long test-short: export GOFLAGS += -buildmode=pie -pgo=off
RACE_FLAGS     = -race -buildmode=default

test: test-programs
	GOMPI_TEST_BIN=$(TESTBIN) $(GO) test $(TEST_FLAGS) $(RACE_FLAGS) -p 4 -count=1 -timeout 15m $(RACE_PKGS)
	GOMPI_TEST_BIN=$(TESTBIN) $(GO) test $(TEST_FLAGS) -count=1 -timeout 15m $(PLAIN_PKGS)
	$(GO) test $(TEST_FLAGS) -count=1 -tags purego ./internal/lowlevel

# The suites' programs, by name (a program's directory's last element).
test-programs:
	@rm -rf $(TESTBIN) && mkdir -p $(TESTBIN)/race
	@dup=$$($(GO) list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' $(TEST_PROGRAMS) | xargs -n1 basename | sort | uniq -d); \
	if [ -n "$$dup" ]; then echo "test programs share a name: $$dup"; exit 1; fi
	$(GO) build $(TEST_LDFLAGS) -o $(TESTBIN)/ $(TEST_PROGRAMS)
	$(GO) build $(TEST_LDFLAGS) $(RACE_FLAGS) -o $(TESTBIN)/race/ $(RACE_PROGRAMS)
	@# hostcheck with the pmix ess component, which srun --mpi=pmix and Open
	@# MPI's mpirun start in test/multihost; without OpenPMIx's headers those
	@# tests build it themselves and skip, saying why.
	@$(GO) build $(TEST_LDFLAGS) -tags pmix -o $(TESTBIN)/pmix/ ./test/multihost/testdata/hostcheck 2>/dev/null || \
		echo "hostcheck not built with -tags pmix (OpenPMIx's headers missing?): test/multihost's PMIx tests will say why they skip"
	@$(MAKE) --no-print-directory c-library LIB=$(TESTBIN)/lib INCLUDE=$(TESTBIN)/include

# make test, then the collective matrix again with the sizes that only
# -long runs.
test-long: test
	GOMPI_TEST_BIN=$(TESTBIN) $(GO) test -count=1 -timeout 30m -run TestMatrix ./test/coll -long

# The unit tier.
test-short:
	$(GO) test -short -count=1 ./...

# What CI checks besides the tests: formatting, go vet (wrappergen's generated
# test packages too, which ./... skips), staticcheck,
# go.mod and go.sum as go mod tidy leaves them, no unreachable code, and
# the committed generated code as its generators write it.
lint: deadcode check-generated
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./... ./internal/wrappergen/testdata/gen/... ./internal/wrappergen/testdata/profprog
	$(GO) vet -tags pmix ./components/ess/pmix ./components/all
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags pmix ./components/ess/pmix
	$(GO) mod tidy -diff

# Fails when make generate or make docs would change a file: they run in
# a copy of the tree (its tracked and new files, as they are now), whose
# own git index then tells what they changed. Needs what make generate
# needs (protoc 3.21.12).
check-generated:
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	for f in $$(git ls-files --cached --others --exclude-standard); do [ -e "$$f" ] && echo "$$f"; done | tar -cf - -T - | tar -C $$tmp -xf - && \
	cd $$tmp && git init -q && git add -A && \
	$(MAKE) --no-print-directory -s generate docs >gen.log 2>&1 || { cat gen.log; exit 1; }; rm gen.log; \
	out=$$(git status --porcelain --untracked-files=all | grep -v '^A  '); \
	if [ -n "$$out" ]; then echo "generated code is stale (make generate docs changes it):"; echo "$$out"; git --no-pager diff --stat; exit 1; fi

# Functions that no program and no test reaches, the test programs under
# testdata/ included: a public call that nothing runs is untested. The
# frameworks' seal methods are reached through their interfaces only.
# capi is left out: a C library's roots are its cgo exports, which
# deadcode does not see; staticcheck finds its unused code, and test/capi
# checks a C program calls every function it implements.
DEADCODE ?= golang.org/x/tools/cmd/deadcode@v0.52.0
deadcode:
	@tmp=$$(mktemp); trap 'rm -f $$tmp' EXIT; \
	$(GO) run $(DEADCODE) -test ./... $$(find . -path '*/testdata/*' -name '*.go' -exec dirname {} \; | sort -u) > $$tmp || exit 1; \
	out=$$(grep -v -e 'unreachable func: BaseComponent\.[a-z]*Base$$' -e '^capi/' $$tmp); \
	if [ -n "$$out" ]; then echo "unreachable code:"; echo "$$out"; exit 1; fi

# Regenerates the generated documentation (docs/parameters.md).
docs:
	$(GO) test ./internal/paramdoc -run TestParametersDocIsCurrent -update

# Four ranks on this machine: each says which transport (self, sm or tcp)
# reaches each peer, then a token goes round the ring, a ping-pong runs and
# pi is computed with a broadcast and a reduction, over shared memory (the
# default on one host) and then over tcp.
demo: build
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/hello
	$(BIN)/gompirun -np 4 --oversubscribe --tag-output $(BIN)/ring -laps 1000
	$(BIN)/gompirun -np 2 $(BIN)/pingpong -m 0:1048576 -i 200
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/pi -n 10000000
	$(BIN)/gompirun -np 4 --oversubscribe --mca btl self,tcp $(BIN)/ring -laps 1000
	$(BIN)/gompirun -np 2 --mca btl self,tcp $(BIN)/pingpong -m 0:1048576 -i 200
	rm -f $(BIN)/demo-stats.*
	$(BIN)/gompirun -np 4 --oversubscribe --mca prof stats --mca prof_stats_output $(BIN)/demo-stats $(BIN)/pi -n 10000000
	sed -n '/--- MPI time/,/--- Call sites/p' $(BIN)/demo-stats.*.txt
	rm -rf $(BIN)/demo-jsonl && mkdir -p $(BIN)/demo-jsonl
	$(BIN)/gompirun -np 2 --mca mca_base_component_path $(CURDIR)/$(BIN)/plugins --mca prof jsonl --mca prof_jsonl_dir $(BIN)/demo-jsonl $(BIN)/pi -n 1000000
	head -4 $(BIN)/demo-jsonl/*.0.jsonl
	@if [ -e lib/libmpi_abi.so.1 ]; then \
		echo '$(BIN)/gompicc -O2 -o $(BIN)/cpi examples/cpi/cpi.c -lm && $(BIN)/gompirun -np 4 --oversubscribe $(BIN)/cpi 10000000'; \
		$(BIN)/gompicc -O2 -o $(BIN)/cpi examples/cpi/cpi.c -lm && $(BIN)/gompirun -np 4 --oversubscribe $(BIN)/cpi 10000000; \
	else echo "no C library (lib/libmpi_abi.so.1): the C demo is skipped"; fi

# gompi's own benchmarks, into bench/out/: the Go micro-benchmarks of the
# hot paths and a cache line's crossing between two CPUs, the machine's
# state (micro.txt, for benchstat), and gompi-bench's tables over gompi's
# default transports, the collectives on 4 ranks with their min and max
# over the ranks (-f). Each file is written whole, then shown.
BENCH_COUNT ?= 6
bench: build
	@mkdir -p bench/out
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) ./internal/pml ./components/btl/tcp ./bench/compare > bench/out/micro.txt && cat bench/out/micro.txt
	$(BIN)/gompirun -np 2 $(BIN)/gompi-bench latency > bench/out/latency.txt && cat bench/out/latency.txt
	$(BIN)/gompirun -np 2 $(BIN)/gompi-bench sendrecv > bench/out/sendrecv.txt && cat bench/out/sendrecv.txt
	$(BIN)/gompirun -np 2 $(BIN)/gompi-bench bw > bench/out/bw.txt && cat bench/out/bw.txt
	$(BIN)/gompirun -np 2 $(BIN)/gompi-bench bibw > bench/out/bibw.txt && cat bench/out/bibw.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench multi-lat -i 1000 -x 100 > bench/out/multi-lat.txt && cat bench/out/multi-lat.txt
	$(BIN)/gompirun -np 8 --oversubscribe $(BIN)/gompi-bench incast > bench/out/incast.txt && cat bench/out/incast.txt
	$(BIN)/gompirun -np 8 --oversubscribe $(BIN)/gompi-bench ring -s 8 -i 2000 -x 20 > bench/out/ring.txt && cat bench/out/ring.txt
	$(BIN)/gompi-bench launch > bench/out/launch.txt && cat bench/out/launch.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench barrier -f > bench/out/barrier.txt && cat bench/out/barrier.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench bcast -f > bench/out/bcast.txt && cat bench/out/bcast.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench reduce -f > bench/out/reduce.txt && cat bench/out/reduce.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench allreduce -f > bench/out/allreduce.txt && cat bench/out/allreduce.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench allgather -f > bench/out/allgather.txt && cat bench/out/allgather.txt
	$(BIN)/gompirun -np 4 --oversubscribe $(BIN)/gompi-bench alltoall -f > bench/out/alltoall.txt && cat bench/out/alltoall.txt

# gompi side by side with Open MPI and MPICH on this machine (installs them
# from Debian's packages if missing), gompi over tcp and, when the build has
# it, over sm, then across simulated hosts (go test ./test/multihost, which
# needs root and namespaces; without them the report says so): prints the
# medians, rewrites the generated section of docs/performance.md,
# docs/performance-tables.md and docs/perf-*.svg. The collectives run on 2,
# 4 and 8 ranks over shared memory only. The gompi C side is bench/c built
# with bin/gompicc against make build's C library. About twenty minutes and
# 7 rounds across hosts; QUICK=1 about twelve and 3 rounds.
bench-compare: build
	$(BIN)/gompi-bench-compare $(if $(filter 1,$(QUICK)),-quick) -go '$(GO)' -command 'make bench-compare$(if $(filter 1,$(QUICK)), QUICK=1)'

# The profile that go build optimises gompi-bench and the C library with
# (profile-guided optimisation: -pgo=auto takes a main package's
# default.pgo; capi's is a link to gompi-bench's): gompi-bench built
# without a profile runs bench/pgo/collect.sh's measurements, and their
# ranks' CPU profiles merge into one. About a minute. The profile is
# committed, as generated code is; a program of one's own takes it with
# go build -pgo (docs/performance.md).
PGO_PROFILE := bench/cmd/gompi-bench/default.pgo
pgo:
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; set -e; \
	$(GO) build -pgo=off -o $$tmp/ ./cmd/gompirun ./bench/cmd/gompi-bench; \
	bench/pgo/collect.sh $$tmp $$tmp/profiles; \
	$(GO) tool pprof -proto $$tmp/profiles/* > $$tmp/default.pgo; \
	mv $$tmp/default.pgo $(PGO_PROFILE)

clean:
	rm -rf $(BIN) $(LIB) $(INCLUDE)

# Regenerates the committed generated code: the protobuf/gRPC stubs of the
# job runtime (needs Debian's protobuf-compiler; the Go plugins come from
# the module proxy), and the prof framework's pass-through base and function
# table, from pmpi/api.go.
generate: generate-prof generate-abi
	internal/protogen/protoc.sh internal/rte/rtepb runtime.proto
	internal/protogen/protoc.sh mca/pluginpb component.proto
	internal/protogen/protoc.sh frameworks/prof/profpb prof.proto
	internal/protogen/protoc.sh frameworks/coll/collpb coll.proto

# The C library's header, entry points and glue, from capi/mpi.abi.
generate-abi:
	$(GO) run ./internal/abigen -dir .

# The prof part alone: it needs nothing but Go.
generate-prof:
	$(GO) run ./frameworks/prof/internal/apigen/profgen -api pmpi/api.go -out frameworks/prof
	go generate ./components/prof/trace
