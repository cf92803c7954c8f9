/* The C twin of gompi-bench ring: a token goes round every rank in turn,
 * rank 0 starting each lap; the time per lap in microseconds (-i laps take
 * -i times this). Same flags, defaults and output as gompi-bench (see
 * bench.h).
 *
 *   mpirun -np 8 --oversubscribe ./ring -s 8 -i 10000 -x 100
 */
#include "bench.h"

static const struct measurement ring = {
    .name = "ring",
    .unit = "us",
    .about = "time per lap of a token passed from each rank to the next, rank 0 starting every lap; -i laps take -i "
             "times this",
    .column = "Lap (us)",
    .min_size = 0,
    .default_max = 8,
    .defaults = {10000, 100, 1000, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&ring, argc, argv);
    need_ranks(&ring, 2, 0);
    int rank = bench_rank(), n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int next = (rank + 1) % n, prev = (rank + n - 1) % n;
    char *token = alloc_buffer(max_size(&o));
    warm_up();
    if (rank == 0)
        print_header(&ring);
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        counts_for(&o, size, &iters, &warm);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                start = MPI_Wtime();
            if (rank == 0)
                MPI_Send(token, (int)size, MPI_BYTE, next, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(token, (int)size, MPI_BYTE, prev, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rank != 0)
                MPI_Send(token, (int)size, MPI_BYTE, next, TAG_DATA, MPI_COMM_WORLD);
        }
        if (rank == 0)
            print_row(size, (MPI_Wtime() - start) / iters * 1e6);
    }
    free(token);
    MPI_Finalize();
    return 0;
}
