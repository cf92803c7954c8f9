/* The C twin of gompi-bench comm-dup: each rank times
 * MPI_Comm_dup of the world and MPI_Comm_free, in a loop (comm.h).
 *
 *   mpirun -np 4 --oversubscribe ./comm_dup -i 1000 -x 200 -f
 */
#include "comm.h"

static const struct measurement comm_dup = {
    .name = "comm-dup",
    .unit = "us",
    .about = "time of one Dup of the world and Free"
             ", averaged over the ranks; one row, keyed by the rank count",
    .column = "Avg Latency (us)",
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .no_sizes = 1,
    .stats = 1,
};

static void make(MPI_Comm *c) {
    MPI_Comm_dup(MPI_COMM_WORLD, c);
}

int main(int argc, char **argv) { return comm_main(&comm_dup, make, argc, argv); }
