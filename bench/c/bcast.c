/* The C twin of gompi-bench bcast: rank 0 broadcasts size bytes; the
 * average over the ranks of the time per call in microseconds (-f: and
 * the minimum and maximum). Same flags, defaults and output as gompi-bench
 * (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./bcast -m 1:1048576 -f
 */
#include "coll.h"

static const struct measurement bcast = {
    .name = "bcast",
    .unit = "us",
    .about = "time of one Bcast from rank 0, averaged over the ranks; a barrier after each call, outside the timing",
    .column = "Avg Latency (us)",
    .min_size = 1,
    .default_max = COLL_MAX,
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .stats = 1,
};

static char *buf;

static void setup(long max, int nranks) {
    (void)nranks;
    buf = alloc_buffer(max);
}

static void call(long size, MPI_Comm comm) { MPI_Bcast(buf, (int)size, MPI_BYTE, 0, comm); }

int main(int argc, char **argv) { return coll_main(&bcast, argc, argv, setup, call); }
