/* The C twin of gompi-bench sendrecv: ranks 0 and 1 each call MPI_Sendrecv
 * with the other, both directions at once; the time of one exchange in
 * microseconds (not halved). Same flags, defaults and output as
 * gompi-bench (see bench.h).
 *
 *   mpirun -np 2 ./sendrecv -m 0:4194304 -i 1000 -x 100
 */
#include "bench.h"

static const struct measurement sendrecv = {
    .name = "sendrecv",
    .unit = "us",
    .about = "time of one exchange: ranks 0 and 1 each call Sendrecv with the other, both directions at once",
    .column = "Latency (us)",
    .min_size = 0,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&sendrecv, argc, argv);
    need_ranks(&sendrecv, 2, 0);
    int rank = bench_rank();
    int peer = rank == 0 ? 1 : 0; /* used by ranks 0 and 1 only */
    char *s = alloc_buffer(max_size(&o)), *r = alloc_buffer(max_size(&o));
    if (rank == 0)
        print_header(&sendrecv);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (rank < 2)
                MPI_Sendrecv(s, (int)size, MPI_BYTE, peer, TAG_DATA, r, (int)size, MPI_BYTE, peer, TAG_DATA,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            print_row(size, (MPI_Wtime() - start) / iters * 1e6);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
