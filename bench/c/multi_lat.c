/* The C twin of gompi-bench multi-lat: ranks i and i+n/2 ping-pong at once;
 * the one-way latency averaged over the pairs, in microseconds. Same flags,
 * defaults and output as gompi-bench (see bench.h).
 *
 *   mpirun -np 4 ./multi_lat -m 0:4194304 -i 1000 -x 100
 */
#include "bench.h"

static const struct measurement multi_lat = {
    .name = "multi-lat",
    .unit = "us",
    .about = "average one-way latency of the pairs (i, i+n/2), all timed at once",
    .column = "Latency (us)",
    .min_size = 0,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&multi_lat, argc, argv);
    need_ranks(&multi_lat, 2, 1);
    int rank = bench_rank(), n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int half = n / 2, initiator = rank < half;
    int peer = initiator ? rank + half : rank - half;
    char *s = alloc_buffer(max_size(&o)), *r = alloc_buffer(max_size(&o));
    warm_up();
    if (rank == 0)
        print_header(&multi_lat);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (initiator) {
                MPI_Send(s, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(r, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
            }
        }
        double lat = initiator ? (MPI_Wtime() - start) / iters / 2 * 1e6 : 0, sum = 0;
        MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            print_row(size, sum / half);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
