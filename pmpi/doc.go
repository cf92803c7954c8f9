// Package pmpi holds gompi's real MPI entry points, the PMPI layer. Package
// mpi calls them through one indirection (API) that profiling tools wrap;
// tools and collective components call pmpi, or the engine below it,
// directly, so nothing is counted twice. Real returns the implementation
// with no tool around it.
//
// MPI is initialised once per process, so the library's state is a
// process-wide value set by Init: the one deliberate exception to gompi's
// rule of no package-level mutable state. Prepare joins the job and loads
// the parameters and frameworks; Init completes it, so that package mpi can
// build the profiling stack between the two and have Init pass through it.
//
// # Requests
//
// As in MPI, the Wait or Test that completes a request frees it: pmpi takes
// its requests from its library's cache and puts each back when a call
// completes it, so a non-blocking call allocates nothing. The cache is a
// last-in-first-out stack under a lowlevel.SpinLock (a compare-and-swap to take,
// a release store to let go), bounded at 4096 requests, and WaitAll puts
// back what it completes in batches of 64: a sync.Pool took a locked
// instruction to pop and another to push each request beyond its private
// slot, each waiting for the processor's earlier stores (a sixth of rank
// 0's time in an 8-rank incast). The engine's request lives inside pmpi's,
// one cached object per call rather than two.
//
// mpi.Request is a value that users copy freely, so it carries the
// generation its operation started with. A request's generation is odd
// while active; it is bumped at start (a release store: until the call
// returns nobody else writes the request) and at completion (a
// compare-and-swap, so a second, erroneous completion cannot recycle it
// twice). A Request whose generation no longer matches is inactive, like
// MPI_REQUEST_NULL: waiting on it returns the empty status and never
// touches the operation that reuses the memory. Tools that remember
// requests across a completing call key them on pointer and generation,
// read before the call. This is also the shape the C ABI needs: integer
// handles that a completion frees.
//
// WaitAll and TestAll take the caller's status slice or none
// (MPI_STATUSES_IGNORE), so a window of non-blocking calls allocates
// nothing. Each status is written once, into its slot: the engine's WaitRef
// hands over the request's status where it lies and pmpi translates it in
// place, since copying it on the way up stalled a rank that completes
// hundreds of requests on cold cache lines.
//
// When the module that reaches the peer takes a fragment's header by
// value (btl.SmallPoster: sm), an eager Isend goes through the engine's
// PostEager and fills no engine request; waiting on it returns a send's
// status and flushes what the module held back for that peer. tcp and
// self take headers in slices, so their eager Isends go through an engine
// request.
//
// # Before a collective module runs
//
// pmpi checks what one rank can see (root in range, counts not negative,
// buffers large enough, the operation defined on the type: ErrOp names
// what the operation takes), turns counts and displacements into bytes,
// and resolves MPI_IN_PLACE by copying this rank's contribution out of the
// receive buffer, so that a module never sees buffers that overlap. Send
// and receive buffers that overlap without the in-place form are
// ErrBuffer. Its communicator reaches the coll framework through a small
// adapter (coll.Comm) that calls the engine directly on the communicator's
// collective context.
//
// # Intercommunicators and context ids
//
// Every communicator takes two context ids, its own and its collectives',
// agreed among its members (agreeContext): each proposes its lowest free
// id, reserved meanwhile so that another goroutine's agreement cannot
// take it, and all retry above the largest until one is free everywhere.
// The parent's ranks that will not be members take part without a say.
// An intercommunicator's is agreed the same way over both groups at once:
// each group reduces within itself, its leader swaps the result with the
// other group's leader, and broadcasts what it got. An intercommunicator
// keeps its remote group where an intracommunicator keeps its group, so
// point-to-point calls translate ranks on the same path; its local group
// gets a hidden intracommunicator (the bridge) for the collectives it
// serves (Barrier, Bcast, Allreduce) and for later agreements, whose
// exchanges between the groups go on its collective context with tags
// below the coll framework's. CommCreateGroup, called by a group's members
// alone, agrees over a binomial tree of them on the parent's collective
// context, tagged after the caller's tag.
//
// # Reductions
//
// An Op is a predefined operation or a user function; binding it to a
// datatype gives the coll.Op. Operands are combined as MPI orders them,
// inout = in ⊕ inout where in holds the lower ranks' data, so a
// non-commutative operation gives the rank-order result. Each predefined
// operation is a generic Go loop instantiated per element type; on amd64
// the sums, the floating-point products and the bitwise operations run
// over whole 64-byte blocks in SSE2, or AVX2 where the processor has it,
// which also takes integer minimum and maximum of up to 32 bits
// (op_amd64.s). They combine element by element, as the loops do, so
// results are the same bit for bit; floating-point minimum and maximum stay
// loops, since the vector instructions order NaNs and signed zeros
// otherwise than Go's min. MinLoc and MaxLoc work on Pair[T] (a value and
// an int32 index, laid out as C's MPI_DOUBLE_INT and kin); like every
// reduction they combine packed data, so a pair's padding is not there.
package pmpi
