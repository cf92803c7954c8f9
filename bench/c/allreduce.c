/* The C twin of gompi-bench allreduce: every rank's vector of size/4
 * floats summed, the sum at every rank; the average over the ranks of the
 * time per call in microseconds (-f: and the minimum and maximum). Same
 * flags, defaults and output as gompi-bench (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./allreduce -m 4:1048576 -f
 */
#include "coll.h"

static const struct measurement allreduce = {
    .name = "allreduce",
    .unit = "us",
    .about = "time of one Allreduce (float32 Sum, size/4 elements), averaged over the ranks; a barrier after each "
             "call, outside the timing",
    .column = "Avg Latency (us)",
    .min_size = sizeof(float),
    .default_max = COLL_MAX,
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .stats = 1,
};

static float *send, *recv;

static void setup(long max, int nranks) {
    (void)nranks;
    send = (float *)alloc_buffer(max);
    recv = (float *)alloc_buffer(max);
}

static void call(long size, MPI_Comm comm) {
    MPI_Allreduce(send, recv, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm);
}

int main(int argc, char **argv) { return coll_main(&allreduce, argc, argv, setup, call); }
