// Package lowlevel holds the processor and runtime tricks that gompi's hot
// paths use, each in one place, with what it relies on and a test that
// fails when that no longer holds. The frameworks and components that use
// them keep their contracts and algorithms; how to store with release
// ordering or read the goroutine pointer is here.
//
// Each trick was checked against the Go version of go.mod (go 1.26.0) and
// the toolchain it was built with (go1.26.8 linux/amd64), with and without
// the race detector (go test [-race] ./internal/lowlevel), and with the
// purego build tag, which selects the portable fallbacks on amd64 too so
// that they are tested here. The arm64 build is vetted and compiled, not
// run. On a new Go release, run those tests first: they check the
// runtime's behaviour that the tricks rely on, not only the tricks'.
//
// # Release stores: StoreRelease64, StoreRelease32, StoreReleaseUint64, UnlockFlag
//
// Go's atomic stores are sequentially consistent: on amd64 an XCHG, which
// waits until every earlier store of the processor has reached the cache.
// When those are a record just written into lines that another processor
// read last, the wait is a cache-line transfer per message: a window of 64
// small sends over btl sm spent half its time there (BenchmarkWindow,
// 119-160 ns a message; 39-87 with plain stores, and the 0-256 byte latency
// fell from 0.245 to 0.223 us). Where a protocol needs only release
// ordering (the end of a lock, a record's stamp, a consumer's head), a
// plain MOV gives it on amd64. It relies on
//   - x86-TSO: a processor's stores reach the others in program order, and
//     a load never passes an earlier store to the same address; a later
//     load may pass the store, so a flag that two sides set and then check
//     (a sleeper and its waker) still needs a swap, or a remote fence on
//     the other side (below);
//   - the Go compiler moving no memory access across a call to an assembly
//     function, which it cannot see into, and never inlining one.
//
// Elsewhere than amd64, under the race detector and with purego, the
// stores are sync/atomic's: the race detector does not see an assembly
// store, and would report the accesses it orders as races
// (TestStoreReleasePublishes fails under -race with the MOV). Readers load
// with sync/atomic. StoreReleaseUint64 and UnlockFlag store into
// sync/atomic's types through a pointer to the word they hold: Uint64 is
// {noCopy, align64, v uint64} and Bool {noCopy, v uint32} with false as 0,
// the markers of size zero; release.go fails to compile if the sizes change.
//
// # Remote fences: JoinRemoteFences, RemoteFence
//
// A waker stores a word and then loads a sleeper's count; the sleeper
// raises the count and then loads the word (a Dekker pair). Each side
// needs a full fence between its store and its load, and on the waker's
// side, the hot one, that fence (an XCHG) waits until the stored line has
// come over from the processor that read it last: up to half a microsecond
// between far CPUs. membarrier(2)'s global expedited command moves the
// cost to the side that is about to sleep anyway: it runs a full barrier
// in every running thread of every process that registered, so the
// waker's plain release store and load are ordered as if it had fenced
// itself. With far CPUs a 2-rank coll sm bcast of 4-256 bytes took
// 0.55-0.65 of its time (reduce 0.85); with near ones it was level. It
// relies on
//   - the kernel (Linux 4.16 or later) and any seccomp filter allowing
//     membarrier: where registration fails, the waker keeps its XCHG, and
//     the filter is the same for every rank of a host;
//   - a thread that is not running holding no store unseen: the kernel's
//     context switch is a full barrier.
//
// TestRemoteFenceOrdersAReleaseStore plays the store-buffering litmus
// test: without the fence both sides miss the other's store in some
// rounds here, with it in none.
//
// # SpinLock
//
// A lock for a few instructions' worth of work that goroutines seldom
// contend for: a compare-and-swap to take, a release store to let go, half
// the locked instructions of a sync.Mutex, whose Unlock is an atomic add.
// pmpi's recycled requests under it, in place of a sync.Pool's two locked
// instructions per request, took an 8-rank incast from 0.276-0.303 to
// 0.243-0.266 us a message; the engine's lock as one, in place of a
// sync.Mutex, to 0.90-0.97 of the time again, and a one-rank Sendrecv or
// persistent Start and Wait to 0.95. A waiter yields with Gosched, then
// also to the kernel (a holder whose thread is off its CPU needs one), so
// the lock must never be held across a blocking call.
//
// # Gosched
//
// Waiting loops yield to the process's other goroutines, which run the
// background transfers, with Gosched: runtime.Gosched with one P and free
// callers. With more Ps, or in the C library (SetCallersLocked), whose
// callers are goroutines locked to C threads, it yields only when the
// runtime counts a runnable goroutine (/sched/goroutines/runnable:goroutines,
// about 130 ns to read, as long as an empty runtime.Gosched). On a locked
// goroutine runtime.Gosched hands the processor to another thread, which
// finds only the locked goroutine to run and hands it back: two thread
// wake-ups even when nothing else runs; a C 64 KiB ping-pong over sm went
// from 47-58 to 14-15 us a message in 3 of 4 rounds (Go's 10-13), an
// oversubscribed 4-rank 8-byte allreduce from 27-31 to 8.4-9.0 us (Go's
// 4.7-6.3). With an idle P, runtime.Gosched wakes a thread for it, which
// finds nothing and sleeps again: on simulated hosts whose CPUs all poll,
// that thread takes a CPU from a rank, and a rank per host polling tcp
// switched threads 1,957 times a second against 783 without (with the tcp
// readers' longer naps; either alone is no better), its 8-byte latency
// between hosts 0.95-1.005 of the time in three batches (89 of 150 paired
// runs below 1). It relies on the metric
// (TestOthersRunnableSeesAWaitingGoroutine), on the runtime waking an idle
// P for a goroutine made ready, whose thread also runs the timers and
// network waits (TestGoschedLeavesOthersToIdleProcessors), and with one P
// on the runtime's monitor preempting a goroutine that runs for 10 ms.
//
// # Yield
//
// sched_yield as a raw system call, for loops that wait while a host's
// ranks outnumber its CPUs: runtime.Gosched only yields to this process's
// goroutines. It relies on the runtime not being told of a raw call: told
// of a system call that lasts, as a yield does while other processes run,
// the runtime hands the thread's P to another thread, and getting it back
// costs a thread wake-up (about 28 us here, two hundred sm round trips):
// a ring of 8 ranks on 2 CPUs, 2000 laps over sm, took 2.2-2.7 s with the
// yield told to the runtime and 0.33-0.70 s with it raw.
//
// # Futexes: FutexWait, FutexWaitRaw, FutexWake
//
// Ranks on one host sleep on a word of a shared segment until another
// rank bumps it, which neither a channel nor a sync.Cond can do across
// processes. The futexes are the process-shared forms (no
// FUTEX_PRIVATE_FLAG): the kernel keys them by the mapped file's page, so a
// wake in one process finds a sleeper in another
// (TestFutexWakesAnotherProcess). FutexWait tells the runtime, which runs
// the process's other goroutines meanwhile; FutexWaitRaw does not, so the
// rank keeps its P and runs at once when woken, for a rank whose only
// work is the wait (btl.Dozer). The runtime counts a goroutine in a raw
// wait as running: a stop-the-world interrupts the wait with a signal
// (FUTEX_WAIT with a timeout returns EINTR after a handler ran) and waits
// until the goroutine is back in Go, so raw waits take short timeouts.
//
// # Views of shared memory: Uint64At, Uint32At, Word64At
//
// A shared segment is a []byte from mmap, and Go has no atomic operation
// on bytes: the views cast a word of it to *atomic.Uint64, *atomic.Uint32
// (sync/atomic's types are the bare word, as above) or *uint64. An atomic
// access must not straddle cache lines (a bus lock on amd64, a fault on
// arm64), and mapped memory gets its alignment from the segment's layout,
// not from Go's types, so the views check it and panic on a misaligned
// offset, at the cost of an AND and a branch; they stay cheap to inline
// (19 of the inliner's budget of 80), so that an accessor over one or two
// of them inlines too. They rely on the garbage collector ignoring
// pointers outside its heap, which mapped memory is.
//
// # GoroutineKey, GoroutineID
//
// The trace tool keys its per-goroutine tracks on the calling goroutine.
// Go exposes no goroutine identity; its id costs a stack trace
// (GoroutineID: microseconds, once per goroutine to name its track), where
// the address of the runtime's descriptor, g, costs nanoseconds
// (GoroutineKey: a fifteen-hundredth of GoroutineID in BenchmarkGoroutine
// here). It relies on
//   - where the runtime keeps g for assembly: on amd64 in thread-local
//     storage, read with (TLS), since assembly runs under ABI0, where R14
//     (g under ABIInternal) may hold anything; on arm64 in R28 under every
//     ABI;
//   - the runtime never moving a g (stacks move, descriptors do not) and
//     reusing one only after its goroutine ended, so that a key is stable
//     for a goroutine's life and unique among the live ones
//     (TestGoroutineKeyStable, TestGoroutineKeysDistinct).
//
// Elsewhere, and with purego, GoroutineKey is GoroutineID.
//
// # Callers
//
// The stats tool finds a call's site from the return addresses above it:
// runtime.Callers took hundreds of nanoseconds a call, the walk of the
// frame pointers about 5 (a first version of the tool cost 350 ns a call;
// this walk, a mutex per shard and an open-addressing table brought it
// under 100). It relies on
//   - frame pointers, which the Go compiler keeps in every frame on amd64
//     and arm64 (since Go 1.7 and 1.12; no setting turns them off): each
//     frame holds its caller's BP at 0(BP) and its return address at 8(BP),
//     and the goroutine's outermost frame a zero BP;
//   - Go calling an assembly function directly, from any package, with no
//     ABI wrapper frame in between, so that BP at its entry is its caller's.
//
// TestCallersMatchesRuntime compares its PCs with runtime.Callers' from
// another package. It sees physical frames only: wrappers that
// runtime.Callers hides are there, and inlined calls are not (the PCs
// still resolve to them through runtime.CallersFrames). Elsewhere than
// amd64, and with purego, it is runtime.Callers.
//
// # Ticks
//
// The time-stamp counter (RDTSC) on amd64: 11 ns here against 26 for a
// clock_gettime through the vDSO on a virtual machine, and a tool that
// times every call reads it twice per call (the plugin recording layer
// went from 90 to 40 ns a call). It relies on an invariant counter, at a
// constant rate and in step across cores, as on every x86-64 processor of
// the last decade; its rate is measured against the wall clock by whoever
// converts it (prof.Clock). RDTSC does not wait for earlier instructions
// to finish, which moves a reading by the depth of the processor's
// pipeline at most, nothing beside a call's duration. Elsewhere, and with
// purego, it is the monotonic clock in nanoseconds.
package lowlevel
