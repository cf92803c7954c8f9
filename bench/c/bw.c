/* The C twin of gompi-bench bw: rank 0 sends windows of 64 non-blocking
 * messages to rank 1, which acknowledges each window with 4 bytes; the
 * bandwidth in MB/s (10^6 bytes). Same flags, defaults and output as
 * gompi-bench (see bench.h).
 *
 *   mpirun -np 2 ./bw -m 1:4194304 -i 100 -x 10
 */
#include "bench.h"

#define WINDOW 64

static const struct measurement bw = {
    .name = "bw",
    .unit = "MB/s",
    .about = "bandwidth from rank 0 to 1, windows of 64 non-blocking sends each acknowledged, 1 MB = 10^6 bytes",
    .column = "Bandwidth (MB/s)",
    .min_size = 1,
    .defaults = {100, 10, 20, 2},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&bw, argc, argv);
    need_ranks(&bw, 2, 0);
    int rank = bench_rank();
    /* One buffer per direction for the whole window, as OSU has. */
    char *s = alloc_buffer(max_size(&o)), *r = alloc_buffer(max_size(&o)), ack[4] = {0};
    warm_up();
    MPI_Request reqs[WINDOW];
    MPI_Status st[WINDOW]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's */
    if (rank == 0)
        print_header(&bw);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank > 1)
            continue;
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (rank == 0) {
                for (int j = 0; j < WINDOW; j++)
                    MPI_Isend(s, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
                MPI_Waitall(WINDOW, reqs, st);
                MPI_Recv(ack, 4, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (int j = 0; j < WINDOW; j++)
                    MPI_Irecv(r, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
                MPI_Waitall(WINDOW, reqs, st);
                MPI_Send(ack, 4, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            print_row(size, (double)size * iters * WINDOW / 1e6 / (MPI_Wtime() - start));
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
