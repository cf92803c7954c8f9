package osu

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/pmpi"
)

// Tags keep the measurements' messages apart from their bookkeeping.
const (
	tagData   = 1
	tagAck    = 2
	tagSync   = 3
	tagGather = 4
)

// settle runs a garbage collection once a measurement's buffers exist.
// The collection that allocating them starts would otherwise run during
// the first size: 5 ms of concurrent marking on a rank's one P made the
// first size of a 2-rank allreduce 5-15 times slower than the next run of
// it. The timed loops allocate nothing, so no collection follows.
func settle() { runtime.GC() }

// barrier holds every rank until all have reached it: a gather to rank 0
// and a release over point-to-point, so that between sizes only the
// transport under measurement carries traffic (mpi.Barrier may go through
// coll sm's segment). It runs outside the timed loops.
func barrier(w mpi.Comm) error {
	var none []byte
	if w.Rank() != 0 {
		if err := mpi.Send(none, 0, tagSync, w); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
		if _, err := mpi.Recv(none, 0, tagSync, w); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
		return nil
	}
	for r := 1; r < w.Size(); r++ {
		if _, err := mpi.Recv(none, r, tagSync, w); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
	}
	for r := 1; r < w.Size(); r++ {
		if err := mpi.Send(none, r, tagSync, w); err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
	}
	return nil
}

// rankZeroTransports is rank 0's view of every peer: "0:self 1:tcp".
func rankZeroTransports(mpi.Comm) (string, error) { return pmpi.Transports(), nil }

// pairTransports lists the transport of each timed pair, "0-2:tcp 1-3:tcp",
// as the first rank of each pair sees it.
func pairTransports(pairs func(n int) [][2]int) func(mpi.Comm) (string, error) {
	return func(w mpi.Comm) (string, error) {
		var parts []string
		for _, p := range pairs(w.Size()) {
			var name string
			switch me := w.Rank(); {
			case me == p[0]:
				t, err := transportTo(pmpi.Transports(), p[1])
				if err != nil {
					return "", err
				}
				if me != 0 {
					if err := mpi.Send([]byte(t), 0, tagGather, w); err != nil {
						return "", fmt.Errorf("sending pair %d-%d's transport: %w", p[0], p[1], err)
					}
					continue
				}
				name = t
			case w.Rank() == 0:
				buf := make([]byte, 64)
				st, err := mpi.Recv(buf, p[0], tagGather, w)
				if err != nil {
					return "", fmt.Errorf("receiving pair %d-%d's transport: %w", p[0], p[1], err)
				}
				name = string(buf[:st.Count])
			default:
				continue
			}
			parts = append(parts, fmt.Sprintf("%d-%d:%s", p[0], p[1], name))
		}
		return strings.Join(parts, " "), nil
	}
}

// transportTo finds a peer's transport in a description like "0:self 1:tcp".
func transportTo(desc string, peer int) (string, error) {
	for _, f := range strings.Fields(desc) {
		r, name, ok := strings.Cut(f, ":")
		if n, err := strconv.Atoi(r); ok && err == nil && n == peer {
			return name, nil
		}
	}
	return "", fmt.Errorf("no transport to rank %d in %q", peer, desc)
}
