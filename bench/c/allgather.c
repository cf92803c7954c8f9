/* The C twin of gompi-bench allgather: size bytes from every rank gathered
 * at every rank; the average over the ranks of the time per call in
 * microseconds (-f: and the minimum and maximum). Same flags, defaults and
 * output as gompi-bench (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./allgather -m 1:1048576 -f
 */
#include "coll.h"

static const struct measurement allgather = {
    .name = "allgather",
    .unit = "us",
    .about = "time of one Allgather of size bytes from every rank, averaged over the ranks; a barrier after each "
             "call, outside the timing",
    .column = "Avg Latency (us)",
    .min_size = 1,
    .default_max = COLL_MAX,
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .stats = 1,
};

static char *send, *recv;

static void setup(long max, int nranks) {
    send = alloc_buffer(max);
    recv = alloc_buffer(max * nranks);
}

static void call(long size, MPI_Comm comm) {
    MPI_Allgather(send, (int)size, MPI_BYTE, recv, (int)size, MPI_BYTE, comm);
}

int main(int argc, char **argv) { return coll_main(&allgather, argc, argv, setup, call); }
