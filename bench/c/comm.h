/* Shared by the C twins of gompi-bench comm-dup, comm-idup and comm-split:
 * each rank times its own loop of making a communicator of the world's
 * ranks and freeing it; the average over the ranks in microseconds (-f:
 * and the minimum and maximum), one row keyed by the rank count, as
 * barrier's. Same flags, defaults and output as gompi-bench (bench.h).
 */
#ifndef GOMPI_COMM_H
#define GOMPI_COMM_H

#include "coll.h"

/* COMM_MEASUREMENT is the measurement named n that times what, as
 * gompi-bench's comm-* name it. */
#define COMM_MEASUREMENT(n, what)                                                                  \
    {                                                                                              \
        .name = n, .unit = "us",                                                                   \
        .about = "time of one " what ", averaged over the ranks; one row, keyed by the rank count", \
        .column = "Avg Latency (us)", .defaults = COLL_DEFAULTS, .large_size = COLL_LARGE,         \
        .no_sizes = 1, .stats = 1,                                                                 \
    }

static inline int comm_main(const struct measurement *m, void (*make)(MPI_Comm *c), int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(m, argc, argv);
    if (o.cold)
        usage_error(m->name, "-c: making a communicator has no cold run", NULL);
    warm_up();
    int iters, warm;
    counts_for(&o, 0, &iters, &warm);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = 0;
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            start = MPI_Wtime();
        MPI_Comm c;
        make(&c);
        MPI_Comm_free(&c);
    }
    double t = (MPI_Wtime() - start) / iters * 1e6;
    long ranks = world_size();
    coll_report(m, &o, &ranks, &t, 1);
    MPI_Finalize();
    return 0;
}

#endif
