/* The C twin of gompi-bench ibcast, OSU's osu_ibcast: rank 0 broadcasts
 * size bytes by an Ibcast overlapped with computation; per size the pure
 * latency, the overall and compute times and the overlap, averaged over
 * the ranks. Same flags, defaults and output as gompi-bench (see bench.h
 * and nbc.h).
 *
 *   mpirun -np 2 ./ibcast -m 1:1048576
 */
#include "nbc.h"

static const struct measurement ibcast = NBC_MEASUREMENT("ibcast", "Ibcast", "Ibcast of size bytes from rank 0", 1);

static char *buf;

static void setup(long max, int nranks) {
    (void)nranks;
    buf = alloc_buffer(max);
}

static void start(long size, MPI_Comm comm, MPI_Request *req) { MPI_Ibcast(buf, (int)size, MPI_BYTE, 0, comm, req); }

int main(int argc, char **argv) { return nbc_main(&ibcast, argc, argv, setup, start); }
