/* The C twin of gompi-bench barrier: back-to-back barriers, each rank
 * timing its own loop; the average over the ranks in microseconds (-f:
 * and the minimum and maximum), one row keyed by the rank count. Same
 * flags, defaults and output as gompi-bench (see bench.h and coll.h).
 *
 *   mpirun -np 8 --oversubscribe ./barrier -i 1000 -x 200 -f
 *   mpirun -np 8 --oversubscribe ./barrier -i 20 -c   (the first 20 on a fresh communicator)
 */
#include "coll.h"

static const struct measurement barrier = {
    .name = "barrier",
    .unit = "us",
    .about = "time of one Barrier, averaged over the ranks; one row, keyed by the rank count",
    .column = "Avg Latency (us)",
    .defaults = COLL_DEFAULTS,
    .large_size = COLL_LARGE,
    .no_sizes = 1,
    .stats = 1,
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(&barrier, argc, argv);
    warm_up();
    int iters, warm;
    counts_for(&o, 0, &iters, &warm);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm comm = size_comm(&o, MPI_COMM_WORLD);
    double start = 0;
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            start = MPI_Wtime();
        MPI_Barrier(comm);
    }
    double t = (MPI_Wtime() - start) / iters * 1e6;
    free_size_comm(&o, &comm);
    long ranks = world_size();
    coll_report(&barrier, &o, &ranks, &t, 1);
    MPI_Finalize();
    return 0;
}
