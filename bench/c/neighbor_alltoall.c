/* The C twin of gompi-bench neighbor-alltoall, OSU's
 * osu_neighbor_alltoall: every rank sends a distinct block of size bytes
 * to each of its 4 neighbours on a periodic 2-D torus and receives one
 * from each; the average over the ranks of the time per call in
 * microseconds (-f: and the minimum and maximum). Same flags, defaults
 * and output as gompi-bench (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./neighbor_alltoall -m 1:1048576 -f
 */
#include "coll.h"

static const struct measurement neighbor_alltoall = {
    .name = "neighbor-alltoall",
    .unit = "us",
    .about = "time of one NeighborAlltoall of size bytes to and from each of a rank's 4 neighbours on a periodic 2-D "
             "torus (DimsCreate, CartCreate), averaged over the ranks; a barrier after each call, outside the timing",
    .column = "Avg Latency (us)",
    .min_size = 1,
    .default_max = COLL_MAX,
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .stats = 1,
};

static char *send, *recv;

static void setup(long max, int neighbours) {
    send = alloc_buffer(max * neighbours);
    recv = alloc_buffer(max * neighbours);
}

static void call(long size, MPI_Comm comm) {
    MPI_Neighbor_alltoall(send, (int)size, MPI_BYTE, recv, (int)size, MPI_BYTE, comm);
}

int main(int argc, char **argv) { return neighbor_main(&neighbor_alltoall, argc, argv, setup, call); }
