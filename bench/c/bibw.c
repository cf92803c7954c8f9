/* The C twin of gompi-bench bibw: ranks 0 and 1 each post a window of 64
 * receives and 64 sends at once; the two directions' bandwidth added, in
 * MB/s (10^6 bytes). Same flags, defaults and output as gompi-bench (see
 * bench.h).
 *
 *   mpirun -np 2 ./bibw -m 1:4194304 -i 100 -x 10
 */
#include "bench.h"

#define WINDOW 64

static const struct measurement bibw = {
    .name = "bibw",
    .unit = "MB/s",
    .about = "bandwidth of both directions between ranks 0 and 1 added, windows of 64 non-blocking sends each way, 1 MB = 10^6 bytes",
    .column = "Bandwidth (MB/s)",
    .min_size = 1,
    .defaults = {100, 10, 20, 2},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&bibw, argc, argv);
    need_ranks(&bibw, 2, 0);
    int rank = bench_rank();
    char *s = alloc_buffer(max_size(&o)), *r = alloc_buffer(max_size(&o));
    warm_up();
    MPI_Request sends[WINDOW], recvs[WINDOW];
    MPI_Status st[WINDOW]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's */
    if (rank == 0)
        print_header(&bibw);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank > 1)
            continue;
        int peer = 1 - rank;
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            for (int j = 0; j < WINDOW; j++)
                MPI_Irecv(r, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &recvs[j]);
            for (int j = 0; j < WINDOW; j++)
                MPI_Isend(s, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &sends[j]);
            MPI_Waitall(WINDOW, sends, st);
            MPI_Waitall(WINDOW, recvs, st);
        }
        if (rank == 0)
            print_row(size, (double)size * iters * WINDOW * 2 / 1e6 / (MPI_Wtime() - start));
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
