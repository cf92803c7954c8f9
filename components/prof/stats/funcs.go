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
	fnIbarrier
	fnIbcast
	fnIreduce
	fnIallreduce
	fnIgather
	fnIgatherv
	fnIscatter
	fnIscatterv
	fnIallgather
	fnIallgatherv
	fnIalltoall
	fnIalltoallv
	fnIreduceScatter
	fnIreduceScatterBlock
	fnIscan
	fnIexscan
	fnNeighborAllgather
	fnIneighborAllgather
	fnNeighborAllgatherv
	fnIneighborAllgatherv
	fnNeighborAlltoall
	fnIneighborAlltoall
	fnNeighborAlltoallv
	fnIneighborAlltoallv
	fnBarrierInit
	fnBcastInit
	fnReduceInit
	fnAllreduceInit
	fnGatherInit
	fnGathervInit
	fnScatterInit
	fnScattervInit
	fnAllgatherInit
	fnAllgathervInit
	fnAlltoallInit
	fnAlltoallvInit
	fnReduceScatterInit
	fnReduceScatterBlockInit
	fnScanInit
	fnExscanInit
	fnNeighborAllgatherInit
	fnNeighborAllgathervInit
	fnNeighborAlltoallInit
	fnNeighborAlltoallvInit
	fnAlltoallw
	fnIalltoallw
	fnAlltoallwInit
	fnNeighborAlltoallw
	fnIneighborAlltoallw
	fnNeighborAlltoallwInit
	fnPsendInit
	fnPrecvInit
	fnPready
	fnPreadyRange
	fnPreadyList
	fnParrived
	fnCartCreate
	fnCartSub
	fnGraphCreate
	fnDistGraphCreate
	fnDistGraphCreateAdjacent
	fnCommFree
	fnCommDisconnect
	fnBufferAttach
	fnBufferDetach
	fnBufferFlush
	fnBufferIflush
	fnCommAttachBuffer
	fnCommDetachBuffer
	fnCommBufferFlush
	fnCommBufferIflush
	fnTypeContiguous
	fnTypeVector
	fnTypeHvector
	fnTypeIndexed
	fnTypeHindexed
	fnTypeIndexedBlock
	fnTypeHindexedBlock
	fnTypeSubarray
	fnTypeDarray
	fnTypeResized
	fnTypeStruct
	fnTypeDup
	fnTypeCommit
	fnTypeFree
	fnPack
	fnUnpack
	fnPackExternal
	fnUnpackExternal
	fnInfoCreate
	fnInfoSet
	fnInfoGet
	fnInfoDelete
	fnInfoGetNkeys
	fnInfoGetNthkey
	fnInfoDup
	fnInfoFree
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
	"Ibarrier", "Ibcast", "Ireduce", "Iallreduce", "Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather", "Iallgatherv", "Ialltoall", "Ialltoallv", "Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan", "Neighbor_allgather", "Ineighbor_allgather", "Neighbor_allgatherv", "Ineighbor_allgatherv", "Neighbor_alltoall", "Ineighbor_alltoall", "Neighbor_alltoallv", "Ineighbor_alltoallv", "Barrier_init", "Bcast_init", "Reduce_init", "Allreduce_init", "Gather_init", "Gatherv_init", "Scatter_init", "Scatterv_init", "Allgather_init", "Allgatherv_init", "Alltoall_init", "Alltoallv_init", "Reduce_scatter_init", "Reduce_scatter_block_init", "Scan_init", "Exscan_init", "Neighbor_allgather_init", "Neighbor_allgatherv_init", "Neighbor_alltoall_init", "Neighbor_alltoallv_init",
	"Alltoallw", "Ialltoallw", "Alltoallw_init", "Neighbor_alltoallw", "Ineighbor_alltoallw", "Neighbor_alltoallw_init",
	"Psend_init", "Precv_init", "Pready", "Pready_range", "Pready_list", "Parrived",
	"Cart_create", "Cart_sub", "Graph_create", "Dist_graph_create", "Dist_graph_create_adjacent",
	"Comm_free", "Comm_disconnect",
	"Buffer_attach", "Buffer_detach", "Buffer_flush", "Buffer_iflush",
	"Comm_attach_buffer", "Comm_detach_buffer", "Comm_buffer_flush", "Comm_buffer_iflush",
	"Type_contiguous", "Type_vector", "Type_create_hvector", "Type_indexed", "Type_create_hindexed", "Type_create_indexed_block", "Type_create_hindexed_block", "Type_create_subarray", "Type_create_darray", "Type_create_resized", "Type_create_struct",
	"Type_dup", "Type_commit", "Type_free", "Pack", "Unpack", "Pack_external", "Unpack_external",
	"Info_create", "Info_set", "Info_get_string", "Info_delete", "Info_get_nkeys", "Info_get_nthkey", "Info_dup", "Info_free",
}

func (f fn) String() string { return fnNames[f] }
