/* Shared by the C twins of gompi-bench's collectives: OSU's collective
 * defaults (1000 iterations after 200 warm-up ones, 100 after 10 above
 * 8 KiB, sizes up to 1 MiB), its loop (each rank times each call, an
 * untimed barrier after it) and the report: rank 0 prints, per size, the
 * average over the ranks of their mean times, and with -f the minimum and
 * maximum. coll_main runs a collective on the world, neighbor_main a
 * neighbourhood collective on a periodic 2-D torus of it. See bench.h for
 * the flags and the output layout.
 */
#ifndef GOMPI_COLL_H
#define GOMPI_COLL_H

#include "bench.h"

#define COLL_DEFAULTS {1000, 200, 100, 10}
#define COLL_LARGE (8L << 10)
#define COLL_MAX (1L << 20)

static inline int world_size(void) {
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* coll_report gathers every rank's times (one per key) to rank 0, which
 * prints the header and a row per key. */
static inline void coll_report(const struct measurement *m, const struct options *o, const long *keys, const double *times,
                        int nkeys) {
    int rank = bench_rank(), n = world_size();
    double *all = NULL;
    if (rank == 0) {
        all = malloc(sizeof(double) * n * (nkeys > 0 ? nkeys : 1));
        if (!all) {
            fprintf(stderr, "out of memory for the ranks' times\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gather(times, nkeys, MPI_DOUBLE, all, nkeys, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    print_header_full(m, o->full, o->cold);
    for (int k = 0; k < nkeys; k++) {
        double lo = all[k], hi = all[k], sum = 0;
        for (int r = 0; r < n; r++) {
            double t = all[r * nkeys + k];
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
            sum += t;
        }
        printf("%-12ld", keys[k]);
        print_value(sum / n);
        if (o->full) {
            print_value(lo);
            print_value(hi);
        }
        printf("\n");
    }
    free(all);
}

/* size_comm is the communicator a size runs on: base, or with -c a fresh
 * one, a Dup of it, which free_size_comm frees. */
static inline MPI_Comm size_comm(const struct options *o, MPI_Comm base) {
    MPI_Comm c = base;
    if (o->cold)
        MPI_Comm_dup(base, &c);
    return c;
}

static inline void free_size_comm(const struct options *o, MPI_Comm *c) {
    if (o->cold)
        MPI_Comm_free(c);
}

/* coll_run times a collective over every size on base (every rank of the
 * world) and reports: call runs it once on size bytes over comm. With -c
 * each size runs on a fresh communicator, calls and barriers alike. */
static inline void coll_run(const struct measurement *m, const struct options *o, MPI_Comm base,
                            void (*call)(long size, MPI_Comm comm)) {
    double times[MAX_SIZES];
    for (int k = 0; k < o->nsizes; k++) {
        long size = o->sizes[k];
        int iters, warm;
        counts_for(o, size, &iters, &warm);
        MPI_Barrier(base);
        MPI_Comm comm = size_comm(o, base);
        double total = 0;
        for (int i = 0; i < iters + warm; i++) {
            double start = MPI_Wtime();
            call(size, comm);
            if (i >= warm)
                total += MPI_Wtime() - start;
            MPI_Barrier(comm);
        }
        free_size_comm(o, &comm);
        times[k] = total / iters * 1e6;
    }
    coll_report(m, o, o->sizes, times, o->nsizes);
}

/* coll_main runs a collective over every size on the world: setup
 * allocates its buffers for the largest size and the job's rank count. */
static inline int coll_main(const struct measurement *m, int argc, char **argv, void (*setup)(long max_size, int nranks),
                     void (*call)(long size, MPI_Comm comm)) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(m, argc, argv);
    setup(max_size(&o), world_size());
    warm_up();
    coll_run(m, &o, MPI_COMM_WORLD, call);
    MPI_Finalize();
    return 0;
}

/* TORUS_DIMS is the neighbourhood collectives' torus's dimensions; each
 * rank has two neighbours in each. */
#define TORUS_DIMS 2

/* TORUS_WARM is how many barriers the new torus makes before the timing,
 * as the world warms before it: a grid's steady state, past the calls of
 * a new communicator that some libraries serve apart (gompi's coll sm
 * sets up its shared segment at a communicator's 257th call). */
#define TORUS_WARM 300

/* neighbor_main runs a neighbourhood collective over every size on a
 * periodic torus of the world's ranks in their order, as balanced as
 * MPI_Dims_create makes it: setup allocates its buffers for the largest
 * size and the neighbour count. */
static inline int neighbor_main(const struct measurement *m, int argc, char **argv,
                                void (*setup)(long max_size, int neighbours), void (*call)(long size, MPI_Comm comm)) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(m, argc, argv);
    int dims[TORUS_DIMS] = {0}, periods[TORUS_DIMS];
    for (int d = 0; d < TORUS_DIMS; d++)
        periods[d] = 1;
    MPI_Dims_create(world_size(), TORUS_DIMS, dims);
    MPI_Comm torus;
    MPI_Cart_create(MPI_COMM_WORLD, TORUS_DIMS, dims, periods, 0, &torus);
    for (int i = 0; i < TORUS_WARM; i++)
        MPI_Barrier(torus);
    setup(max_size(&o), 2 * TORUS_DIMS);
    warm_up();
    coll_run(m, &o, torus, call);
    MPI_Comm_free(&torus);
    MPI_Finalize();
    return 0;
}

#endif
