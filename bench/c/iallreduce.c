/* The C twin of gompi-bench iallreduce, OSU's osu_iallreduce: every
 * rank's vector of size/4 floats summed, the sum at every rank, by an
 * Iallreduce overlapped with computation; per size the pure latency, the
 * overall and compute times and the overlap, averaged over the ranks. Same
 * flags, defaults and output as gompi-bench (see bench.h and nbc.h).
 *
 *   mpirun -np 2 ./iallreduce -m 4:1048576
 */
#include "nbc.h"

static const struct measurement iallreduce =
    NBC_MEASUREMENT("iallreduce", "Iallreduce", "Iallreduce (float32 Sum, size/4 elements)", sizeof(float));

static float *send, *recv;

static void setup(long max, int nranks) {
    (void)nranks;
    send = (float *)alloc_buffer(max);
    recv = (float *)alloc_buffer(max);
}

static void start(long size, MPI_Comm comm, MPI_Request *req) {
    MPI_Iallreduce(send, recv, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm, req);
}

int main(int argc, char **argv) { return nbc_main(&iallreduce, argc, argv, setup, start); }
