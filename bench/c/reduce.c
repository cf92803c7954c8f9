/* The C twin of gompi-bench reduce: every rank's vector of size/4 floats
 * summed into rank 0; the average over the ranks of the time per call in
 * microseconds (-f: and the minimum and maximum). Same flags, defaults and
 * output as gompi-bench (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./reduce -m 4:1048576 -f
 */
#include "coll.h"

static const struct measurement reduce = {
    .name = "reduce",
    .unit = "us",
    .about = "time of one Reduce (float32 Sum, size/4 elements) to rank 0, averaged over the ranks; a barrier after "
             "each call, outside the timing",
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
    MPI_Reduce(send, recv, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, 0, comm);
}

int main(int argc, char **argv) { return coll_main(&reduce, argc, argv, setup, call); }
