/* The C twin of gompi-bench allreduce-init: a persistent Allreduce of
 * size/4 floats, made once per size (MPI_Allreduce_init; Open MPI 4's
 * MPIX_Allreduce_init), each MPI_Start overlapped with computation as
 * iallreduce's call is. Same flags, defaults and output as gompi-bench
 * (see bench.h and nbc.h).
 *
 *   mpirun -np 2 ./allreduce_init -m 4:1048576
 */
#include "nbc.h"

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#include <mpi-ext.h>
#define ALLREDUCE_INIT MPIX_Allreduce_init
#else
#define ALLREDUCE_INIT MPI_Allreduce_init
#endif

static const struct measurement allreduce_init =
    NBC_MEASUREMENT("allreduce-init", "persistent Allreduce's Start",
                    "Start of a persistent Allreduce (float32 Sum, size/4 elements, AllreduceInit once per size)",
                    sizeof(float));

static float *send, *recv;

/* The persistent requests made so far, by size. */
static long made_size[MAX_SIZES];
static MPI_Request made[MAX_SIZES];
static int nmade;

static void setup(long max, int nranks) {
    (void)nranks;
    send = (float *)alloc_buffer(max);
    recv = (float *)alloc_buffer(max);
}

static void start(long size, MPI_Comm comm, MPI_Request *req) {
    int k = 0;
    while (k < nmade && made_size[k] != size)
        k++;
    if (k == nmade) {
        ALLREDUCE_INIT(send, recv, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm, MPI_INFO_NULL, &made[k]);
        made_size[k] = size;
        nmade++;
    }
    *req = made[k];
    MPI_Start(req);
}

int main(int argc, char **argv) { return nbc_main(&allreduce_init, argc, argv, setup, start); }
