/* Shared by the C twins of gompi-bench's non-blocking collectives, OSU's
 * overlap benchmarks (osu_iallreduce, osu_ibcast, osu_ialltoall): for
 * every size, the time of the call and its Wait alone (Pure Comm.), then of
 * the call, computation as long as that time without MPI calls, and the
 * Wait (Overall), and of the computation alone (Compute); each rank times
 * on its own clock, an untimed barrier after every call. Rank 0 prints per
 * size the averages over the ranks and the overlap they give,
 * 100*(1-(Overall-Compute)/Pure Comm.), at least 0. OSU's collective
 * counts and sizes (coll.h); see bench.h for the flags and the layout.
 */
#ifndef GOMPI_NBC_H
#define GOMPI_NBC_H

#include <time.h>

#include "coll.h"

/* NBC_ABOUT is the unit line's text, as gompi-bench words it. */
#define NBC_ABOUT(call, what)                                                                                              \
    "time of one " what " and its Wait (Pure Comm.); then of one " call ", computation without MPI calls as long as "  \
    "Pure Comm., and the Wait (Overall), and of the computation alone (Compute); each averaged over the ranks, a "     \
    "barrier after each call, outside the timing; Overlap is 100*(1-(Overall-Compute)/Pure Comm.), at least 0"

static const char *const nbc_columns[] = {"Overall(us)", "Compute(us)", "Overlap(%)", NULL};

/* NBC_MEASUREMENT fills a measurement with the shared defaults. */
#define NBC_MEASUREMENT(nm, call, what, min)                                                                              \
    {                                                                                                                      \
        .name = nm, .unit = "us", .about = NBC_ABOUT(call, what), .column = "Pure Comm.(us)", .min_size = min,            \
        .default_max = COLL_MAX, .defaults = COLL_DEFAULTS, .large_size = COLL_LARGE, .more = nbc_columns,                \
    }

static volatile double nbc_sink; /* keeps busy's arithmetic */

static inline double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* busy computes for secs without calling MPI, as gompi-bench does: 64
 * steps of arithmetic between looks at the clock. */
static inline void busy(double secs) {
    if (secs <= 0)
        return;
    double x = 1.0;
    for (double start = monotonic(); monotonic() - start < secs;)
        for (int i = 0; i < 64; i++)
            x = x * 1.0000001 + 1e-9;
    nbc_sink = x;
}

/* time_calls returns the mean time in seconds of starting the call over
 * size bytes, computing for compute seconds and waiting for the call, and
 * stores in busy_mean the mean time of the computation alone. */
static inline double time_calls(void (*start)(long size, MPI_Comm comm, MPI_Request *req), long size, int iters,
                                int warm, double compute, double *busy_mean) {
    double total = 0, busy_total = 0;
    for (int i = 0; i < iters + warm; i++) {
        MPI_Request req;
        double began = MPI_Wtime();
        start(size, MPI_COMM_WORLD, &req);
        double computing = MPI_Wtime();
        busy(compute);
        double computed = MPI_Wtime();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (i >= warm) {
            total += MPI_Wtime() - began;
            busy_total += computed - computing;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    *busy_mean = busy_total / iters;
    return total / iters;
}

/* nbc_report gathers every rank's times (pure, overall, then compute, n
 * of each) to rank 0, which prints the header and a row per size. */
static inline void nbc_report(const struct measurement *m, const struct options *o, const double *times) {
    int rank = bench_rank(), ranks = world_size(), n = o->nsizes;
    double *all = NULL;
    if (rank == 0) {
        all = malloc(sizeof(double) * ranks * 3 * (n > 0 ? n : 1));
        if (!all) {
            fprintf(stderr, "out of memory for the ranks' times\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gather(times, 3 * n, MPI_DOUBLE, all, 3 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    print_header(m);
    for (int k = 0; k < n; k++) {
        double avg[3] = {0, 0, 0}; /* pure, overall, compute */
        for (int r = 0; r < ranks; r++)
            for (int c = 0; c < 3; c++)
                avg[c] += all[r * 3 * n + c * n + k] / ranks;
        double overlap = 0;
        if (avg[0] > 0)
            overlap = 100 * (1 - (avg[1] - avg[2]) / avg[0]);
        printf("%-12ld", o->sizes[k]);
        print_value(avg[0]);
        print_value(avg[1]);
        print_value(avg[2]);
        print_value(overlap > 0 ? overlap : 0);
        printf("\n");
    }
    free(all);
}

/* nbc_main runs a non-blocking collective over every size: setup
 * allocates its buffers for the largest size and the job's rank count,
 * start starts it once on size bytes over comm. */
static inline int nbc_main(const struct measurement *m, int argc, char **argv, void (*setup)(long max_size, int nranks),
                           void (*start)(long size, MPI_Comm comm, MPI_Request *req)) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(m, argc, argv);
    setup(max_size(&o), world_size());
    warm_up();
    double times[3 * MAX_SIZES];
    for (int k = 0; k < o.nsizes; k++) {
        long size = o.sizes[k];
        int iters, warm;
        double compute;
        counts_for(&o, size, &iters, &warm);
        double pure = time_calls(start, size, iters, warm, 0, &compute);
        double overall = time_calls(start, size, iters, warm, pure, &compute);
        times[k] = pure * 1e6;
        times[o.nsizes + k] = overall * 1e6;
        times[2 * o.nsizes + k] = compute * 1e6;
    }
    nbc_report(m, &o, times);
    MPI_Finalize();
    return 0;
}

#endif
