package prof

import (
	"fmt"

	"github.com/gompi/gompi/pmpi"
)

// GatherParts collects every rank's part at rank 0 of comm, for a tool
// that writes one report at Finalize: rank 0 gets one slice per rank, the
// others nil. It calls pmpi's real API, below every tool, so that no tool
// counts it: the parts' lengths with a Gather, then the parts with a
// Gatherv.
func GatherParts(comm *pmpi.Comm, part []byte) ([][]byte, error) {
	api := pmpi.Real()
	rank, err := api.CommRank(comm)
	if err != nil {
		return nil, err
	}
	size, err := api.CommSize(comm)
	if err != nil {
		return nil, err
	}
	var lens []int64
	if rank == 0 {
		lens = make([]int64, size)
	}
	if err := api.Gather(pmpi.Bytes([]int64{int64(len(part))}), 1, pmpi.Int64, pmpi.Bytes(lens), 1, pmpi.Int64, 0, comm); err != nil {
		return nil, fmt.Errorf("gather the parts' lengths: %w", err)
	}
	var all []byte
	var counts, displs []int
	if rank == 0 {
		counts, displs = make([]int, size), make([]int, size)
		total := 0
		for i, n := range lens {
			counts[i], displs[i] = int(n), total
			total += int(n)
		}
		all = make([]byte, total)
	}
	if err := api.Gatherv(part, len(part), pmpi.Byte, all, counts, displs, pmpi.Byte, 0, comm); err != nil {
		return nil, fmt.Errorf("gather the parts: %w", err)
	}
	if rank != 0 {
		return nil, nil
	}
	parts := make([][]byte, size)
	for i := range parts {
		parts[i] = all[displs[i] : displs[i]+counts[i]]
	}
	return parts, nil
}
