/* The C twin of gompi-bench latency: ping-pong between ranks 0 and 1,
 * one-way latency (half the round trip) in microseconds. Same flags,
 * defaults and output as gompi-bench (see bench.h).
 *
 *   mpirun -np 2 ./latency -m 0:4194304 -i 1000 -x 100
 */
#include "bench.h"

static const struct measurement latency = {
    .name = "latency",
    .unit = "us",
    .about = "one-way latency, half the round trip between ranks 0 and 1",
    .column = "Latency (us)",
    .min_size = 0,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&latency, argc, argv);
    need_ranks(&latency, 2, 0);
    int rank = bench_rank();
    char *s = alloc_buffer(max_size(&o)), *r = alloc_buffer(max_size(&o));
    if (rank == 0)
        print_header(&latency);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(s, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(r, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(r, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            print_row(size, (MPI_Wtime() - start) / iters / 2 * 1e6);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
