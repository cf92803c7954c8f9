package mpi

import "github.com/gompi/gompi/pmpi"

// Derived datatypes. A slice of a Go struct of fixed-size numbers (and
// arrays and structs of them) is sent by Send and the rest as it is:
// its fields are read once by reflection and its padding is never sent.
// For data that is not a whole slice (a column of a matrix, a block of a
// 3-D array, every other record) a Layout says which elements of a []T a
// call moves: built once, checked when built, and reused by every call.
//
//	col, err := mpi.Vector[float64](rows, 1, cols) // one column of a rows×cols matrix
//	err = mpi.SendLayout(grid[j:], 1, col, right, 0, comm)
//
// A layout's offsets start at its buffer's first element, the origin;
// every element it names must lie at or after the origin and inside the
// buffer, or the call fails with ErrBuffer saying how many bytes it
// needed. A layout that leaves gaps is packed into a pooled buffer to
// send and received through one; one without gaps moves as a plain slice.

// Datatype is an MPI datatype: a predefined one, a Go type's (TypeOf), or
// a Layout's. TypeStruct's blocks take them.
type Datatype = pmpi.Datatype

// Order is the storage order of Subarray's and Darray's array.
type Order = pmpi.Order

// Storage orders for Subarray and Darray.
const (
	OrderC       = pmpi.OrderC       // row-major: the last index varies fastest
	OrderFortran = pmpi.OrderFortran // column-major: the first index varies fastest
)

// Distribution is how Darray deals a dimension of a global array out to
// the processes along that dimension of the grid.
type Distribution = pmpi.Distribution

// Distributions for Darray, and the default distribution argument.
const (
	DistributeBlock       = pmpi.DistributeBlock       // one block of consecutive elements per process
	DistributeCyclic      = pmpi.DistributeCyclic      // blocks dealt to the processes in turn
	DistributeNone        = pmpi.DistributeNone        // not distributed: one process along it holds it all
	DistributeDefaultDarg = pmpi.DistributeDefaultDarg // blocks of ceil(gsize/psize) for block, 1 for cyclic
)

// External32 is MPI's portable data representation, for PackExternal.
const External32 = pmpi.External32

// TypeOf returns the datatype of elements of T: a predefined type for a
// number, a committed derived one for a struct or array of numbers, and
// an invalid one (every call with it fails saying why) for anything else.
func TypeOf[T Elem]() Datatype { return pmpi.TypeOf[T]() }

// Layout is a committed derived datatype over elements of T: which
// elements of a []T, in which order, make one element of the layout. The
// zero Layout is invalid. Copies share the datatype, which Free ends.
type Layout[T Elem] struct {
	dt pmpi.Datatype
}

// LayoutOf is the layout of one T: what Send uses for a []T. The other
// layouts are built from it.
func LayoutOf[T Elem]() Layout[T] { return Layout[T]{pmpi.TypeOf[T]()} }

// Datatype returns the layout's datatype, for TypeStruct or for pmpi.
func (l Layout[T]) Datatype() Datatype { return l.dt }

// Size is the bytes of data in one element of the layout, gaps left out.
func (l Layout[T]) Size() int { return l.dt.Size() }

// Extent returns the layout's lower bound and extent in bytes: the
// elements of a count lie extent bytes apart.
func (l Layout[T]) Extent() (lb, extent int) { return l.dt.Extent() }

// TrueExtent returns the offset of the layout's first byte of data and
// the span of its data, in bytes.
func (l Layout[T]) TrueExtent() (lb, extent int) { return l.dt.TrueExtent() }

// Free ends the layout: later calls with it (or a copy) fail with
// ErrType; calls already started with it finish normally, and layouts
// built from it stay valid.
func (l Layout[T]) Free() error { return api().TypeFree(l.dt) }

// Count returns how many whole elements of the layout a received or
// probed message holds, Undefined if it ends inside one.
func (l Layout[T]) Count(st Status) int { return st.CountOf(l.dt) }

// Elements returns how many basic elements (numbers) a received or probed
// message holds in the layout's terms, Undefined if it ends inside one
// (MPI_Get_elements): how far a partial element got.
func (l Layout[T]) Elements(st Status) int { return st.GetElements(l.dt) }

func (l Layout[T]) String() string { return l.dt.Name() }

// committed commits a constructor's datatype into a layout: two MPI
// calls, the constructor's and MPI_Type_commit, as a C program makes.
func committed[T Elem](dt pmpi.Datatype, err error) (Layout[T], error) {
	if err == nil {
		err = api().TypeCommit(dt)
	}
	if err != nil {
		return Layout[T]{}, err
	}
	return Layout[T]{dt}, nil
}

// Contiguous is count elements of l back to back (MPI_Type_contiguous).
func (l Layout[T]) Contiguous(count int) (Layout[T], error) {
	return committed[T](api().TypeContiguous(count, l.dt))
}

// Vector is count blocks of blocklen elements of l, the starts of
// consecutive blocks stride elements of l apart; stride may be negative
// (MPI_Type_vector).
func (l Layout[T]) Vector(count, blocklen, stride int) (Layout[T], error) {
	return committed[T](api().TypeVector(count, blocklen, stride, l.dt))
}

// Hvector is Vector with the stride in bytes (MPI_Type_create_hvector).
func (l Layout[T]) Hvector(count, blocklen, strideBytes int) (Layout[T], error) {
	return committed[T](api().TypeHvector(count, blocklen, strideBytes, l.dt))
}

// Indexed is blocks of blocklens[i] elements of l at displs[i] elements
// of l, in the order given (MPI_Type_indexed).
func (l Layout[T]) Indexed(blocklens, displs []int) (Layout[T], error) {
	return committed[T](api().TypeIndexed(blocklens, displs, l.dt))
}

// Hindexed is Indexed with the displacements in bytes
// (MPI_Type_create_hindexed).
func (l Layout[T]) Hindexed(blocklens, byteDispls []int) (Layout[T], error) {
	return committed[T](api().TypeHindexed(blocklens, byteDispls, l.dt))
}

// IndexedBlock is Indexed with every block blocklen long
// (MPI_Type_create_indexed_block).
func (l Layout[T]) IndexedBlock(blocklen int, displs []int) (Layout[T], error) {
	return committed[T](api().TypeIndexedBlock(blocklen, displs, l.dt))
}

// HindexedBlock is IndexedBlock with the displacements in bytes
// (MPI_Type_create_hindexed_block).
func (l Layout[T]) HindexedBlock(blocklen int, byteDispls []int) (Layout[T], error) {
	return committed[T](api().TypeHindexedBlock(blocklen, byteDispls, l.dt))
}

// Subarray is the block of an array of elements of l, sizes[i] long
// along dimension i, that starts at starts[i] and is subsizes[i] long
// along each, in C (row-major) or Fortran (column-major) order
// (MPI_Type_create_subarray). Its extent is the whole array's.
func (l Layout[T]) Subarray(sizes, subsizes, starts []int, order Order) (Layout[T], error) {
	return committed[T](api().TypeSubarray(sizes, subsizes, starts, order, l.dt))
}

// Darray is the part of a global array of elements of l, gsizes[i] long
// along dimension i in C or Fortran order, that process rank of size
// holds when the array is dealt out over a grid of psizes processes,
// dimension i by distribs[i] with argument dargs[i] (DistributeDefaultDarg
// for the default) (MPI_Type_create_darray). The grid is row-major
// whatever the order. The local elements keep the array's order; the
// extent is the whole array's, as a subarray's.
func (l Layout[T]) Darray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order) (Layout[T], error) {
	return committed[T](api().TypeDarray(size, rank, gsizes, distribs, dargs, psizes, order, l.dt))
}

// Resized is l with lower bound lb and extent extent, in bytes
// (MPI_Type_create_resized): consecutive elements of a count then lie
// extent bytes apart, so that, for instance, a column's layout resized
// to one element's extent sends consecutive columns as a count.
func (l Layout[T]) Resized(lb, extent int) (Layout[T], error) {
	return committed[T](api().TypeResized(l.dt, lb, extent))
}

// Contiguous is count elements of T back to back.
func Contiguous[T Elem](count int) (Layout[T], error) { return LayoutOf[T]().Contiguous(count) }

// Vector is count blocks of blocklen elements of T, stride elements
// apart: the column of a rows×cols row-major matrix is
// Vector[float64](rows, 1, cols).
func Vector[T Elem](count, blocklen, stride int) (Layout[T], error) {
	return LayoutOf[T]().Vector(count, blocklen, stride)
}

// Hvector is Vector with the stride in bytes.
func Hvector[T Elem](count, blocklen, strideBytes int) (Layout[T], error) {
	return LayoutOf[T]().Hvector(count, blocklen, strideBytes)
}

// Indexed is blocks of blocklens[i] elements of T at element displs[i].
func Indexed[T Elem](blocklens, displs []int) (Layout[T], error) {
	return LayoutOf[T]().Indexed(blocklens, displs)
}

// Hindexed is Indexed with the displacements in bytes.
func Hindexed[T Elem](blocklens, byteDispls []int) (Layout[T], error) {
	return LayoutOf[T]().Hindexed(blocklens, byteDispls)
}

// IndexedBlock is blocks of blocklen elements of T at element displs[i].
func IndexedBlock[T Elem](blocklen int, displs []int) (Layout[T], error) {
	return LayoutOf[T]().IndexedBlock(blocklen, displs)
}

// HindexedBlock is IndexedBlock with the displacements in bytes.
func HindexedBlock[T Elem](blocklen int, byteDispls []int) (Layout[T], error) {
	return LayoutOf[T]().HindexedBlock(blocklen, byteDispls)
}

// Subarray is a block of an n-dimensional array of T (see Layout.Subarray):
// the 2×2 block at (1, 1) of a 4×5 row-major grid is
// Subarray[float64]([]int{4, 5}, []int{2, 2}, []int{1, 1}, OrderC).
func Subarray[T Elem](sizes, subsizes, starts []int, order Order) (Layout[T], error) {
	return LayoutOf[T]().Subarray(sizes, subsizes, starts, order)
}

// Darray is the part of a global array of T that process rank of size
// holds (see Layout.Darray): rank 1's rows of a 10×6 row-major matrix
// dealt by blocks of rows to 3 processes (rows 4 to 7) are
// Darray[float64](3, 1, []int{10, 6}, []Distribution{DistributeBlock,
// DistributeNone}, []int{DistributeDefaultDarg, DistributeDefaultDarg},
// []int{3, 1}, OrderC).
func Darray[T Elem](size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order) (Layout[T], error) {
	return LayoutOf[T]().Darray(size, rank, gsizes, distribs, dargs, psizes, order)
}

// StructBlock is one block of TypeStruct: Count elements of Type at byte
// Disp from the origin.
type StructBlock struct {
	Count int
	Disp  int
	Type  Datatype
}

// TypeStruct is a layout of blocks of different datatypes over a buffer
// of T (MPI_Type_create_struct): a record in a []byte that no Go type
// describes, or some of the fields of a []T. Its extent runs from the
// lowest to the highest bound of its blocks, with no padding added; use
// Resized to step over whole records.
func TypeStruct[T Elem](blocks ...StructBlock) (Layout[T], error) {
	lens, displs, types := make([]int, len(blocks)), make([]int, len(blocks)), make([]pmpi.Datatype, len(blocks))
	for i, b := range blocks {
		lens[i], displs[i], types[i] = b.Count, b.Disp, b.Type
	}
	return committed[T](api().TypeStruct(lens, displs, types))
}

// SendLayout sends count elements of l from buf (its origin at buf[0])
// to rank dest of comm; it returns once buf may be reused.
func SendLayout[T Elem](buf []T, count int, l Layout[T], dest, tag int, comm Comm) error {
	return api().Send(pmpi.Bytes(buf), count, l.dt, dest, tag, comm.c)
}

// SsendLayout is SendLayout that returns once the receiver has matched
// the message.
func SsendLayout[T Elem](buf []T, count int, l Layout[T], dest, tag int, comm Comm) error {
	return api().Ssend(pmpi.Bytes(buf), count, l.dt, dest, tag, comm.c)
}

// RecvLayout receives up to count elements of l into buf from rank
// source (or AnySource) with tag (or AnyTag). A longer message fills
// what it reaches and fails with ErrTruncate; one that ends inside a
// number fails with ErrType, as the sender's layout cannot match.
func RecvLayout[T Elem](buf []T, count int, l Layout[T], source, tag int, comm Comm) (Status, error) {
	return api().Recv(pmpi.Bytes(buf), count, l.dt, source, tag, comm.c)
}

// IsendLayout starts SendLayout; buf must not change until the request
// completes.
func IsendLayout[T Elem](buf []T, count int, l Layout[T], dest, tag int, comm Comm) (Request, error) {
	r, err := api().Isend(pmpi.Bytes(buf), count, l.dt, dest, tag, comm.c)
	return request(r), err
}

// IssendLayout starts SsendLayout.
func IssendLayout[T Elem](buf []T, count int, l Layout[T], dest, tag int, comm Comm) (Request, error) {
	r, err := api().Issend(pmpi.Bytes(buf), count, l.dt, dest, tag, comm.c)
	return request(r), err
}

// IrecvLayout starts RecvLayout; buf must not be read until the request
// completes, when the data lands in it.
func IrecvLayout[T Elem](buf []T, count int, l Layout[T], source, tag int, comm Comm) (Request, error) {
	r, err := api().Irecv(pmpi.Bytes(buf), count, l.dt, source, tag, comm.c)
	return request(r), err
}

// SendrecvLayout sends and receives at once with layouts on both sides.
func SendrecvLayout[S, R Elem](sendbuf []S, sendcount int, sl Layout[S], dest, sendtag int,
	recvbuf []R, recvcount int, rl Layout[R], source, recvtag int, comm Comm) (Status, error) {
	return api().Sendrecv(pmpi.Bytes(sendbuf), sendcount, sl.dt, dest, sendtag,
		pmpi.Bytes(recvbuf), recvcount, rl.dt, source, recvtag, comm.c)
}

// BcastLayout copies count elements of l in buf at root into buf at
// every other rank.
func BcastLayout[T Elem](buf []T, count int, l Layout[T], root int, comm Comm) error {
	return api().Bcast(pmpi.Bytes(buf), count, l.dt, root, comm.c)
}

// GatherLayout collects scount elements of sl from every rank's send
// into recv at root, rcount elements of rl per rank, rank i's at element
// i*rcount of rl (its extent apart): a subarray layout resized to one
// element puts each rank's block in its place in the root's array. Both
// sides must move the same numbers.
func GatherLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], root int, comm Comm) error {
	return api().Gather(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, root, comm.c)
}

// ScatterLayout sends scount elements of sl, block i of send at root, to
// rank i's recv as rcount elements of rl.
func ScatterLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], root int, comm Comm) error {
	return api().Scatter(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, root, comm.c)
}

// AllgatherLayout is GatherLayout with the result at every rank.
func AllgatherLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], comm Comm) error {
	return api().Allgather(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, comm.c)
}

// AlltoallLayout sends block i of send (scount elements of sl) to rank i
// and receives block j of recv (rcount elements of rl) from rank j.
func AlltoallLayout[S, R Elem](send []S, scount int, sl Layout[S], recv []R, rcount int, rl Layout[R], comm Comm) error {
	return api().Alltoall(pmpi.Bytes(send), scount, sl.dt, pmpi.Bytes(recv), rcount, rl.dt, comm.c)
}

// ReduceLayout combines count elements of l from every rank's send with
// op and leaves the result in recv at root (nil elsewhere), both laid out
// by l: a predefined op applies number by number, so Sum over a column
// layout sums columns. A user operation made by NewOp for T takes only
// T's own layout (LayoutOf).
func ReduceLayout[T Elem](send, recv []T, count int, l Layout[T], op Op, root int, comm Comm) error {
	return api().Reduce(pmpi.Bytes(send), pmpi.Bytes(recv), count, l.dt, op, root, comm.c)
}

// AllreduceLayout is ReduceLayout with the result in recv at every rank.
func AllreduceLayout[T Elem](send, recv []T, count int, l Layout[T], op Op, comm Comm) error {
	return api().Allreduce(pmpi.Bytes(send), pmpi.Bytes(recv), count, l.dt, op, comm.c)
}

// Pack packs count elements of l from in into out at pos and returns
// the position after them (MPI_Pack): the bytes a receiver unpacks with
// Unpack and any layout of the same numbers.
func Pack[T Elem](in []T, count int, l Layout[T], out []byte, pos int) (int, error) {
	return api().Pack(pmpi.Bytes(in), count, l.dt, out, pos)
}

// Unpack unpacks count elements of l from in at pos into out and returns
// the position after them (MPI_Unpack).
func Unpack[T Elem](in []byte, pos int, out []T, count int, l Layout[T]) (int, error) {
	return api().Unpack(in, pos, pmpi.Bytes(out), count, l.dt)
}

// PackSize is the bytes Pack takes for count elements of l.
func PackSize[T Elem](count int, l Layout[T]) (int, error) { return api().PackSize(count, l.dt) }

// PackExternal is Pack into MPI's portable representation External32:
// every number big-endian, no padding (MPI_Pack_external).
func PackExternal[T Elem](in []T, count int, l Layout[T], out []byte, pos int) (int, error) {
	return api().PackExternal(External32, pmpi.Bytes(in), count, l.dt, out, pos)
}

// UnpackExternal is Unpack from External32 (MPI_Unpack_external).
func UnpackExternal[T Elem](in []byte, pos int, out []T, count int, l Layout[T]) (int, error) {
	return api().UnpackExternal(External32, in, pos, pmpi.Bytes(out), count, l.dt)
}

// PackExternalSize is the bytes PackExternal takes for count elements of l.
func PackExternalSize[T Elem](count int, l Layout[T]) (int, error) {
	return api().PackExternalSize(External32, count, l.dt)
}
