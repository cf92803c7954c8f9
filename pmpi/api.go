package pmpi

// API is every MPI call gompi offers, with MPI's arguments: buffers as
// (bytes, count, datatype). Package mpi calls through an API value so that
// profiling tools can wrap it, each embedding the next API and overriding
// the calls it measures. Real returns the one that does the work.
type API interface {
	Init() error
	InitThread(required ThreadLevel) (ThreadLevel, error)
	Finalize() error
	Initialized() bool
	Finalized() bool
	Abort(comm *Comm, code int) error
	Wtime() float64
	Wtick() float64
	Pcontrol(level int) error

	CommWorld() *Comm
	CommSelf() *Comm
	CommRank(comm *Comm) (int, error)
	CommSize(comm *Comm) (int, error)

	Send(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error
	Ssend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error
	Recv(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (Status, error)
	Isend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	Issend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	Irecv(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error)
	Sendrecv(sendbuf []byte, sendcount int, sendtype Datatype, dest, sendtag int,
		recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm) (Status, error)
	Probe(source, tag int, comm *Comm) (Status, error)
	Iprobe(source, tag int, comm *Comm) (Status, bool, error)
	Mprobe(source, tag int, comm *Comm) (Message, Status, error)
	Improbe(source, tag int, comm *Comm) (Message, Status, bool, error)
	Mrecv(buf []byte, count int, dt Datatype, msg *Message) (Status, error)
	Imrecv(buf []byte, count int, dt Datatype, msg *Message) (*Request, error)

	Wait(r *Request) (Status, error)
	Test(r *Request) (Status, bool, error)
	Cancel(r *Request) error
	WaitAll(reqs []*Request, sts []Status) error
	WaitAny(reqs []*Request) (int, Status, error)
	WaitSome(reqs []*Request, indices []int, sts []Status) (int, error)
	TestAll(reqs []*Request, sts []Status) (bool, error)
	TestAny(reqs []*Request) (int, Status, bool, error)

	Bsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error
	Ibsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	BufferAttach(buf []byte) error
	BufferDetach() ([]byte, error)
	BufferFlush() error
	CommAttachBuffer(comm *Comm, buf []byte) error
	CommDetachBuffer(comm *Comm) ([]byte, error)
	CommBufferFlush(comm *Comm) error
	BufferIflush() (*Request, error)
	CommBufferIflush(comm *Comm) (*Request, error)
	Rsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) error
	Irsend(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	SendrecvReplace(buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (Status, error)
	Isendrecv(sendbuf []byte, sendcount int, sendtype Datatype, dest, sendtag int,
		recvbuf []byte, recvcount int, recvtype Datatype, source, recvtag int, comm *Comm) (*Request, error)
	IsendrecvReplace(buf []byte, count int, dt Datatype, dest, sendtag, source, recvtag int, comm *Comm) (*Request, error)
	SendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	BsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	SsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	RsendInit(buf []byte, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	RecvInit(buf []byte, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error)
	Start(r *Request) error
	Startall(reqs []*Request) error
	PsendInit(buf []byte, partitions, count int, dt Datatype, dest, tag int, comm *Comm) (*Request, error)
	PrecvInit(buf []byte, partitions, count int, dt Datatype, source, tag int, comm *Comm) (*Request, error)
	Pready(partition int, r *Request) error
	PreadyRange(lo, hi int, r *Request) error
	PreadyList(partitions []int, r *Request) error
	Parrived(r *Request, partition int) (bool, error)
	TestSome(reqs []*Request, indices []int, sts []Status) (int, error)
	RequestGetStatus(r *Request) (Status, bool, error)
	RequestFree(r *Request) error
	GrequestStart(query GrequestQuery, free GrequestFree, cancel GrequestCancel) (*Request, error)
	GrequestComplete(r *Request) error
	StatusSetElements(st *Status, dt Datatype, count int) error
	StatusSetCancelled(st *Status, cancelled bool) error
	TestCancelled(st *Status) (bool, error)

	CommDup(comm *Comm) (*Comm, error)
	CommSplit(comm *Comm, color, key int) (*Comm, error)
	CommSplitType(comm *Comm, splitType, key int) (*Comm, error)
	CommCreate(comm *Comm, group *Group) (*Comm, error)
	CommFree(comm *Comm) error
	CommDisconnect(comm *Comm) error
	CommCompare(a, b *Comm) (Comparison, error)
	CommGroup(comm *Comm) (*Group, error)
	CommSetName(comm *Comm, name string) error
	CommGetName(comm *Comm) (string, error)
	CommSetErrhandler(comm *Comm, h ErrorHandler) error
	IntercommCreate(local *Comm, localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error)
	IntercommMerge(inter *Comm, high bool) (*Comm, error)
	CommTestInter(comm *Comm) (bool, error)
	CommRemoteSize(comm *Comm) (int, error)
	CommRemoteGroup(comm *Comm) (*Group, error)
	CommCreateGroup(comm *Comm, group *Group, tag int) (*Comm, error)

	GroupSize(g *Group) (int, error)
	GroupRank(g *Group) (int, error)
	GroupIncl(g *Group, ranks []int) (*Group, error)
	GroupExcl(g *Group, ranks []int) (*Group, error)
	GroupUnion(a, b *Group) (*Group, error)
	GroupIntersection(a, b *Group) (*Group, error)
	GroupDifference(a, b *Group) (*Group, error)
	GroupTranslateRanks(a *Group, ranks []int, b *Group) ([]int, error)
	GroupCompare(a, b *Group) (Comparison, error)

	OpCreate(f UserFunc, commutative bool) (Op, error)

	Barrier(comm *Comm) error
	Bcast(buf []byte, count int, dt Datatype, root int, comm *Comm) error
	Reduce(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) error
	Allreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error
	Gather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error
	Gatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) error
	Scatter(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error
	Scatterv(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) error
	Allgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error
	Allgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error
	Alltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error
	Alltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error
	ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) error
	ReduceScatterBlock(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error
	Scan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error
	Exscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) error

	// Process topologies (topo*.go).
	DimsCreate(nnodes int, dims []int) error
	CartCreate(comm *Comm, dims []int, periods []bool, reorder bool) (*Comm, error)
	CartMap(comm *Comm, dims []int, periods []bool) (int, error)
	CartdimGet(comm *Comm) (int, error)
	CartGet(comm *Comm) ([]int, []bool, []int, error)
	CartRank(comm *Comm, coords []int) (int, error)
	CartCoords(comm *Comm, rank int) ([]int, error)
	CartShift(comm *Comm, direction, disp int) (int, int, error)
	CartSub(comm *Comm, remain []bool) (*Comm, error)
	GraphCreate(comm *Comm, index, edges []int, reorder bool) (*Comm, error)
	GraphMap(comm *Comm, index, edges []int) (int, error)
	GraphdimsGet(comm *Comm) (int, int, error)
	GraphGet(comm *Comm) ([]int, []int, error)
	GraphNeighborsCount(comm *Comm, rank int) (int, error)
	GraphNeighbors(comm *Comm, rank int) ([]int, error)
	DistGraphCreateAdjacent(comm *Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*Comm, error)
	DistGraphCreate(comm *Comm, sources, degrees, dests, weights []int, reorder bool) (*Comm, error)
	DistGraphNeighborsCount(comm *Comm) (int, int, bool, error)
	DistGraphNeighbors(comm *Comm) ([]int, []int, []int, []int, error)
	TopoTest(comm *Comm) (Topology, error)

	// Neighbourhood collectives, blocking, non-blocking and persistent (neighbor.go).
	NeighborAllgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error
	NeighborAllgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) error
	NeighborAlltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) error
	NeighborAlltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) error
	IneighborAllgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	IneighborAllgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error)
	IneighborAlltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	IneighborAlltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error)
	NeighborAllgatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	NeighborAllgathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error)
	NeighborAlltoallInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	NeighborAlltoallvInit(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error)

	// All-to-all exchanges whose every block has its own count, datatype
	// and displacement in bytes, blocking, non-blocking and persistent
	// (alltoallw.go).
	Alltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error
	Ialltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error)
	AlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error)
	NeighborAlltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) error
	IneighborAlltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error)
	NeighborAlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype, comm *Comm) (*Request, error)

	// Attributes and hints on communicators (attr*.go, info_comm.go).
	CommCreateKeyval(copy CommCopyAttrFunc, del CommDeleteAttrFunc, extra any) (Keyval, error)
	CommFreeKeyval(kv *Keyval) error
	CommSetAttr(comm *Comm, kv Keyval, value any) error
	CommGetAttr(comm *Comm, kv Keyval) (any, bool, error)
	CommDeleteAttr(comm *Comm, kv Keyval) error
	CommSetInfo(comm *Comm, info *Info) error
	CommGetInfo(comm *Comm) (*Info, error)

	// Non-blocking and persistent collectives (nbc*.go).
	Ibarrier(comm *Comm) (*Request, error)
	Ibcast(buf []byte, count int, dt Datatype, root int, comm *Comm) (*Request, error)
	Ireduce(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) (*Request, error)
	Iallreduce(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	Igather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	Igatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) (*Request, error)
	Iscatter(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	Iscatterv(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	Iallgather(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	Iallgatherv(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error)
	Ialltoall(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	Ialltoallv(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error)
	IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) (*Request, error)
	IreduceScatterBlock(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	Iscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	Iexscan(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	BarrierInit(comm *Comm) (*Request, error)
	BcastInit(buf []byte, count int, dt Datatype, root int, comm *Comm) (*Request, error)
	ReduceInit(send, recv []byte, count int, dt Datatype, op Op, root int, comm *Comm) (*Request, error)
	AllreduceInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	GatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	GathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, root int, comm *Comm) (*Request, error)
	ScatterInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	ScattervInit(send []byte, counts, displs []int, sdt Datatype, recv []byte, rcount int, rdt Datatype, root int, comm *Comm) (*Request, error)
	AllgatherInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	AllgathervInit(send []byte, scount int, sdt Datatype, recv []byte, counts, displs []int, rdt Datatype, comm *Comm) (*Request, error)
	AlltoallInit(send []byte, scount int, sdt Datatype, recv []byte, rcount int, rdt Datatype, comm *Comm) (*Request, error)
	AlltoallvInit(send []byte, scounts, sdispls []int, sdt Datatype, recv []byte, rcounts, rdispls []int, rdt Datatype, comm *Comm) (*Request, error)
	ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op, comm *Comm) (*Request, error)
	ReduceScatterBlockInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	ScanInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	ExscanInit(send, recv []byte, count int, dt Datatype, op Op, comm *Comm) (*Request, error)
	ReduceLocal(in, inout []byte, count int, dt Datatype, op Op) error

	// Non-blocking duplication (nbc_idup.go).
	CommIdup(comm *Comm) (*Comm, *Request, error)
	CommIdupWithInfo(comm *Comm, info *Info) (*Comm, *Request, error)
	// Derived datatypes, packing and datatype attributes (datatype_build.go,
	// datatype_darray.go, datatype_pack.go, attr_type.go): local work on the caller's memory,
	// which can take real time (Pack of a large layout). A send with a
	// committed type makes none of these calls.
	TypeContiguous(count int, old Datatype) (Datatype, error)
	TypeVector(count, blocklen, stride int, old Datatype) (Datatype, error)
	TypeHvector(count, blocklen, stride int, old Datatype) (Datatype, error)
	TypeIndexed(blocklens, displs []int, old Datatype) (Datatype, error)
	TypeHindexed(blocklens, displs []int, old Datatype) (Datatype, error)
	TypeIndexedBlock(blocklen int, displs []int, old Datatype) (Datatype, error)
	TypeHindexedBlock(blocklen int, displs []int, old Datatype) (Datatype, error)
	TypeSubarray(sizes, subsizes, starts []int, order Order, old Datatype) (Datatype, error)
	TypeDarray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order, old Datatype) (Datatype, error)
	TypeResized(old Datatype, lb, extent int) (Datatype, error)
	TypeStruct(blocklens, displs []int, types []Datatype) (Datatype, error)
	TypeDup(dt Datatype) (Datatype, error)
	TypeCommit(dt Datatype) error
	TypeFree(dt Datatype) error
	Pack(in []byte, count int, dt Datatype, out []byte, pos int) (int, error)
	Unpack(in []byte, pos int, out []byte, count int, dt Datatype) (int, error)
	PackSize(count int, dt Datatype) (int, error)
	PackExternal(datarep string, in []byte, count int, dt Datatype, out []byte, pos int) (int, error)
	UnpackExternal(datarep string, in []byte, pos int, out []byte, count int, dt Datatype) (int, error)
	PackExternalSize(datarep string, count int, dt Datatype) (int, error)
	TypeCreateKeyval(copy TypeCopyAttrFunc, del TypeDeleteAttrFunc, extra any) (Keyval, error)
	TypeFreeKeyval(kv *Keyval) error
	TypeSetAttr(dt Datatype, kv Keyval, value any) error
	TypeGetAttr(dt Datatype, kv Keyval) (any, bool, error)
	TypeDeleteAttr(dt Datatype, kv Keyval) error

	// Info objects (info.go).
	InfoCreate() *Info
	InfoSet(info *Info, key, value string) error
	InfoGet(info *Info, key string) (string, bool, error)
	InfoDelete(info *Info, key string) error
	InfoGetNkeys(info *Info) (int, error)
	InfoGetNthkey(info *Info, n int) (string, error)
	InfoDup(info *Info) (*Info, error)
	InfoFree(info *Info) error
}

// Real returns the API that does the work: the implementation of each
// call is the method of that name of *realAPI. A profiling tool that
// needs MPI for itself calls Real()'s methods, below every tool, so that
// no tool counts them.
func Real() API { return theAPI }

// realAPI's methods take a pointer: an interface holding a value would
// reach each through a generated wrapper that copies every argument again.
type realAPI struct{}

var theAPI = &realAPI{}

func (*realAPI) CommSetErrhandler(comm *Comm, h ErrorHandler) error {
	if err := checkComm("comm set errhandler", comm); err != nil {
		return err
	}
	if h != ErrorsReturn && h != ErrorsAreFatal {
		return comm.handle(errorf(ClassArg, nil, "comm set errhandler on %v: error handler %d (want ErrorsReturn or ErrorsAreFatal)", comm, h))
	}
	comm.SetErrorHandler(h)
	return nil
}

// CommRank returns this process's rank in comm.
func (*realAPI) CommRank(comm *Comm) (int, error) {
	if err := checkComm("comm rank", comm); err != nil {
		return -1, err
	}
	return comm.rank, nil
}

// CommSize returns the number of ranks in comm.
func (*realAPI) CommSize(comm *Comm) (int, error) {
	if err := checkComm("comm size", comm); err != nil {
		return 0, err
	}
	return comm.Size(), nil
}

// Pcontrol does nothing here: profiling tools above this layer read it
// (level 0 off, 1 on, 2 flush) and pass it down.
func (*realAPI) Pcontrol(level int) error { return nil }
