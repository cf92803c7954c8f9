/* The C twin of gompi-bench ialltoall, OSU's osu_ialltoall: size bytes
 * from every rank to every rank by an Ialltoall overlapped with
 * computation; per size the pure latency, the overall and compute times
 * and the overlap, averaged over the ranks. Same flags, defaults and
 * output as gompi-bench (see bench.h and nbc.h).
 *
 *   mpirun -np 2 ./ialltoall -m 1:1048576
 */
#include "nbc.h"

static const struct measurement ialltoall =
    NBC_MEASUREMENT("ialltoall", "Ialltoall", "Ialltoall of size bytes from every rank to every rank", 1);

static char *send, *recv;

static void setup(long max, int nranks) {
    send = alloc_buffer(max * nranks);
    recv = alloc_buffer(max * nranks);
}

static void start(long size, MPI_Comm comm, MPI_Request *req) {
    MPI_Ialltoall(send, (int)size, MPI_BYTE, recv, (int)size, MPI_BYTE, comm, req);
}

int main(int argc, char **argv) { return nbc_main(&ialltoall, argc, argv, setup, start); }
