/* MPI_Wtime and MPI_Wtick read the clock in C: entering Go costs more
 * than the clock itself (about 130 ns against 20), and a timed loop pays
 * it twice a round. MPI lets them be macros in C, so no Go profiling tool
 * sees them; a C tool may still define MPI_Wtime. The origin is the
 * library's load, near Go's own Wtime epoch; it is set in C, since a C
 * constructor or a tool may read the clock before Go's start-up has run,
 * and the time in the past must not change during the process's life. */
#include <stdatomic.h>
#include <time.h>
#include "include/mpi.h"

static _Atomic long long origin_ns; /* 0 until set */

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* origin sets the origin at the first read, whichever comes first: the
 * library's constructor, or a call from another object's constructor
 * that ran before it. */
static long long origin(void) {
    long long o = atomic_load_explicit(&origin_ns, memory_order_relaxed);
    if (o == 0) {
        long long want = now_ns();
        if (!atomic_compare_exchange_strong(&origin_ns, &o, want))
            return o;
        o = want;
    }
    return o;
}

__attribute__((constructor)) static void wtime_start(void) { (void)origin(); }

double PMPI_Wtime(void) {
    long long t = now_ns();
    return (double)(t - origin()) * 1e-9;
}

double PMPI_Wtick(void) {
    struct timespec r;
    if (clock_getres(CLOCK_MONOTONIC, &r) != 0)
        return 1e-9;
    return (double)r.tv_sec + (double)r.tv_nsec * 1e-9;
}

#pragma weak MPI_Wtime
double MPI_Wtime(void) { return PMPI_Wtime(); }

#pragma weak MPI_Wtick
double MPI_Wtick(void) { return PMPI_Wtick(); }
