package stats

// fn numbers the calls the layer counts; fnNames holds their MPI names.
type fn uint8

const (
	fnSend fn = iota
	fnSsend
	fnRecv
	fnIsend
	fnIssend
	fnIrecv
	fnSendrecv
	fnProbe
	fnIprobe
	fnMprobe
	fnImprobe
	fnMrecv
	fnImrecv
	fnBsend
	fnIbsend
	fnRsend
	fnIrsend
	fnSendrecvReplace
	fnIsendrecv
	fnIsendrecvReplace
	fnSendInit
	fnBsendInit
	fnSsendInit
	fnRsendInit
	fnRecvInit
	fnStart
	fnStartall
	fnWait
	fnTest
	fnCancel
	fnWaitall
	fnWaitany
	fnWaitsome
	fnTestall
	fnTestany
	fnTestsome
	fnRequestFree
	fnCommDup
	fnCommSplit
	fnCommSplitType
	fnCommCreate
	fnIntercommCreate
	fnIntercommMerge
	fnCommCreateGroup
	fnCommIdup
	fnCommIdupWithInfo
	fnBarrier
	fnBcast
	fnReduce
	fnAllreduce
	fnGather
	fnGatherv
	fnScatter
	fnScatterv
	fnAllgather
	fnAllgatherv
	fnAlltoall
	fnAlltoallv
	fnReduceScatter
	fnReduceScatterBlock
	fnScan
	fnExscan
	numFns
)

var fnNames = [numFns]string{
	"Send", "Ssend", "Recv", "Isend", "Issend", "Irecv", "Sendrecv", "Probe", "Iprobe",
	"Mprobe", "Improbe", "Mrecv", "Imrecv",
	"Bsend", "Ibsend", "Rsend", "Irsend", "Sendrecv_replace", "Isendrecv", "Isendrecv_replace",
	"Send_init", "Bsend_init", "Ssend_init", "Rsend_init", "Recv_init", "Start", "Startall",
	"Wait", "Test", "Cancel", "Waitall", "Waitany", "Waitsome", "Testall", "Testany", "Testsome", "Request_free",
	"Comm_dup", "Comm_split", "Comm_split_type", "Comm_create",
	"Intercomm_create", "Intercomm_merge", "Comm_create_group", "Comm_idup", "Comm_idup_with_info",
	"Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
	"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Reduce_scatter", "Reduce_scatter_block",
	"Scan", "Exscan",
}

func (f fn) String() string { return fnNames[f] }
